/// Who looks at a center: their preferred languages, most preferred first, and whether the device is
/// locked. Rendering depends on nothing else but the center's state.
public struct Viewer: Sendable, Hashable {
    /// The most preferred languages a viewer keeps. Lists come from query strings and `Accept-Language`,
    /// and every lookup walks them; iOS's own list is a handful long.
    public static let maximumLanguages = 16

    public var languages: [String]
    public var locked: Bool

    /// - Parameter languages: most preferred first; English when empty, the first
    ///   ``maximumLanguages`` when longer.
    public init(languages: [String] = ["en"], locked: Bool = false) {
        self.languages = languages.isEmpty ? ["en"] : Array(languages.prefix(Self.maximumLanguages))
        self.locked = locked
    }

    /// The locale numbers and lists are written in: the most preferred language.
    public var formattingLocale: String { languages.first ?? "en" }
}
