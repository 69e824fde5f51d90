import HuddleLocalization

extension HuddleStrings {
    /// Huddle's own strings in every language it ships. Each plural string has a form for every category
    /// the language's CLDR cardinal rules use, and every form prints the number (`%u`), because a
    /// category such as Russian `one` also covers 21, 31…
    static let translations: [String: Strings] = [
        "en": Strings(
            summary: [.one: "%u more notification", .other: "%u more notifications"],
            summaryWithArguments: [.one: "%u more notification from %@", .other: "%u more notifications from %@"],
            placeholderSingle: "Notification",
            placeholder: [.one: "%u Notification", .other: "%u Notifications"]),
    ]
}
