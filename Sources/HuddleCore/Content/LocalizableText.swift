/// A text shown in a notification: either final, or a key to localize each time the center is shown.
///
/// The localized form is what `NSString.localizedUserNotificationString(forKey:arguments:)` and the APNs
/// `loc-key` / `loc-args` pairs produce: it stays unresolved, so changing the viewer's language changes the
/// text (behavior.md section 7).
public enum LocalizableText: Sendable, Hashable {
    case plain(String)
    case localized(key: String, arguments: [String])

    /// The text a viewer with no matching localization sees: the plain text, or the key.
    public var fallbackText: String {
        switch self {
        case .plain(let text): text
        case .localized(let key, _): key
        }
    }

    /// Whether it is a key to localize.
    public var isLocalized: Bool {
        if case .localized = self { return true }
        return false
    }

    /// True for a plain empty string, which iOS treats as "not set".
    public var isEmpty: Bool {
        if case .plain(let text) = self { return text.isEmpty }
        return false
    }
}
