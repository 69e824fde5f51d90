/// How much a finding matters, in clang's words: an `error` breaks what users see, a `warning` probably
/// does, a `note` is worth knowing.
public enum LintSeverity: String, Sendable, Hashable, Comparable, CaseIterable {
    case note, warning, error

    public static func < (lhs: LintSeverity, rhs: LintSeverity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }
}
