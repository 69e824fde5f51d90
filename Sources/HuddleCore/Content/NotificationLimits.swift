/// The limits every notification meets once it is a push for a device, whichever API brought it (APNs' provider API,
/// a broadcast, FCM, the device API's local notifications): checked before it is committed, the same on every store.
/// Each API checks its own rules first and answers in its own words; these are the floor none of them can pass under.
public enum NotificationLimits {
    /// The longest notification identifier, in UTF-8 bytes: a local notification's identifier, an Android tag, an
    /// APNs collapse identifier (which APNs itself holds to 64).
    public static let maximumIdentifierBytes = 256

    /// What is wrong with `identifier` as a stored notification's identifier; `nil` when nothing is.
    public static func problem(identifier: String) -> String? {
        guard identifier.utf8.count <= maximumIdentifierBytes else { return "longer than \(maximumIdentifierBytes) bytes" }
        return StorableText.problem(identifier)
    }
}

/// The rule for text that a store keeps as it is, in a column of its own (a device's or an app's name, a notification's
/// identifier): PostgreSQL's `text` refuses the NUL character, which SQLite keeps. It is refused on every store alike,
/// before any commit, so that an answer never depends on the store behind the server (text inside stored JSON is
/// escaped, and needs no rule).
public enum StorableText {
    /// What keeps `text` from being stored; `nil` when nothing does.
    public static func problem(_ text: some StringProtocol) -> String? {
        text.utf8.contains(0) ? "contains a NUL character (U+0000), which no store keeps" : nil
    }
}
