/// Something in a Live Activity push that iOS accepts but that likely does not do what its sender meant.
/// The engine returns notes beside its outcome; the linter and the page show them.
public struct ActivityNote: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A key the declared type does not have: JSONDecoder ignores it, so its value never shows.
        case undeclaredKey
        /// A key iOS does not read for this event (`dismissal-date` on `update`, `attributes` on `end`).
        case ignoredKey
        /// A declared date sent as seconds since 1970: it decodes, 31 years late.
        case dateInUnixSeconds
        /// A declared date sent as milliseconds since 1970: it decodes, millennia late.
        case dateInUnixMilliseconds
        /// `start` without `alert`, which Apple asks for.
        case startWithoutAlert
        /// `end` without `content-state`: the activity keeps its last content.
        case endWithoutContentState
    }

    public var kind: Kind
    /// The key path the note is about (`aps.content-state.eta`).
    public var path: String
    public var message: String

    public init(_ kind: Kind, path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
