/// Names one stack of a center: an app's own group, one of its threads, or (with grouping off) a single
/// notification.
///
/// Its text form is stable and unambiguous, because bundle identifiers hold neither `/` nor `#`:
/// `com.apple.mobilecal`, `com.apple.mobilecal/alerts`, `com.apple.mobilecal#event-7`.
public struct GroupID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Compared by Unicode scalars (see ``ExactString``): two spellings of "Café" are two threads.
    public enum Kind: Sendable, Hashable {
        /// The app's own group: notifications without a thread, or all of them under `byApp`.
        case app
        /// The notifications of one thread identifier.
        case thread(String)
        /// One notification, by identifier, when grouping is off.
        case single(String)

        public static func == (lhs: Kind, rhs: Kind) -> Bool {
            switch (lhs, rhs) {
            case (.app, .app): true
            case (.thread(let left), .thread(let right)), (.single(let left), .single(let right)): left.isExactlyEqual(to: right)
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .app:
                hasher.combine(0)
            case .thread(let thread):
                hasher.combine(1)
                hasher.combineExactly(thread)
            case .single(let identifier):
                hasher.combine(2)
                hasher.combineExactly(identifier)
            }
        }
    }

    public var app: String
    public var kind: Kind

    public init(app: String, kind: Kind) {
        self.app = app
        self.kind = kind
    }

    /// The thread identifier of a thread group, else `nil`.
    public var thread: String? {
        if case .thread(let thread) = kind { return thread }
        return nil
    }

    public var description: String {
        switch kind {
        case .app: app
        case .thread(let thread): "\(app)/\(thread)"
        case .single(let identifier): "\(app)#\(identifier)"
        }
    }

    /// Reads the text form back.
    public init?(_ text: String) {
        guard let separator = text.firstIndex(where: { $0 == "/" || $0 == "#" }) else {
            guard !text.isEmpty else { return nil }
            self.init(app: text, kind: .app)
            return
        }
        let app = String(text[..<separator])
        let rest = String(text[text.index(after: separator)...])
        guard !app.isEmpty, !rest.isEmpty else { return nil }
        self.init(app: app, kind: text[separator] == "/" ? .thread(rest) : .single(rest))
    }

    public static func < (lhs: GroupID, rhs: GroupID) -> Bool {
        lhs.description < rhs.description
    }
}
