/// The checks a category passes at registration.
enum CategoryValidation {
    /// Refuses a list that registers one identifier twice.
    static func rejectDuplicates(_ categories: [NotificationCategory], app: String) throws(CenterError) {
        var seen: Set<String> = []
        for category in categories where !seen.insert(category.identifier).inserted {
            throw CenterError(.invalidCategory, "app \"\(app)\": category \"\(category.identifier)\" is registered twice")
        }
    }

    static func validate(_ categories: [NotificationCategory], app: String) throws(CenterError) {
        try rejectDuplicates(categories, app: app)
        for category in categories {
            try validate(category.categorySummaryFormat, role: .summary, field: "categorySummaryFormat", category: category, app: app)
            try validate(
                category.hiddenPreviewsBodyPlaceholder, role: .placeholder, field: "hiddenPreviewsBodyPlaceholder",
                category: category, app: app)
        }
    }

    private static func validate(
        _ text: LocalizableText?, role: SummaryFormat.Role, field: String, category: NotificationCategory, app: String
    ) throws(CenterError) {
        guard let text else { return }
        let prefix = "app \"\(app)\": category \"\(category.identifier)\": \(field)"
        if case .localized(let key, let arguments) = text, !arguments.isEmpty {
            throw CenterError(
                .invalidCategory,
                "\(prefix) \"\(key)\": a localized format takes no arguments (the count and summary arguments are filled in when the center is shown)")
        }
        // A localized format is checked as its key reads, which is what a viewer without a translation
        // sees; its translations are checked when they are used.
        do {
            _ = try SummaryFormat(validating: text.fallbackText, role: role)
        } catch {
            throw CenterError(.invalidCategory, "\(prefix) \"\(text.fallbackText)\": \(error)")
        }
    }
}
