import HuddleCore

/// The bounds on text that pages show, in one place: names and identifiers are checked when a client gives
/// them, and each text a page shows is cut when the page is rendered. Without them one long app name,
/// repeated on every card, made a page of tens of megabytes.
///
/// Lengths are counted in Unicode scalars or UTF-8 bytes, never in `Character`s: one character can hold
/// any number of combining marks.
enum DisplayText {
    /// A device's or an app's name, in Unicode scalars.
    static let maximumNameScalars = 200
    /// What a page shows of one title, subtitle, body, summary or name, in Unicode scalars: a text resolved
    /// from an app's localizations can be far longer than a payload.
    static let maximumShownScalars = 2_000

    /// - Throws: ``APIError`` `badRequest` naming `field` when `name` is too long.
    static func checkName(_ name: String, field: String) throws {
        guard name.unicodeScalars.count <= maximumNameScalars else {
            throw APIError(.badRequest, "\(field): at most \(maximumNameScalars) characters (Unicode scalars)")
        }
        if let problem = StorableText.problem(name) { throw APIError(.badRequest, "\(field): \(problem)") }
    }

    /// - Throws: ``APIError`` `badRequest` naming `field` when `identifier` is too long, or cannot be stored.
    static func checkIdentifier(_ identifier: String, field: String) throws {
        if let problem = NotificationLimits.problem(identifier: identifier) { throw APIError(.badRequest, "\(field): \(problem)") }
    }

    /// A name as a form gave it, cut to the longest accepted.
    static func cutName(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.prefix(maximumNameScalars)))
    }

    /// A text as a page shows it: whole, or its beginning and an ellipsis.
    static func shown(_ text: String) -> String {
        guard text.unicodeScalars.count > maximumShownScalars else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(maximumShownScalars))) + "…"
    }
}
