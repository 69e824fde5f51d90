/// Who looks at a center: their preferred languages, most preferred first, and whether the device is
/// locked. Rendering depends on nothing else but the center's state.
public struct Viewer: Sendable, Hashable {
    public var languages: [String]
    public var locked: Bool

    public init(languages: [String] = ["en"], locked: Bool = false) {
        self.languages = languages.isEmpty ? ["en"] : languages
        self.locked = locked
    }

    /// The locale numbers and lists are written in: the most preferred language.
    public var formattingLocale: String { languages.first ?? "en" }
}
