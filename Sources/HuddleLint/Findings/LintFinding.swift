/// One problem `huddle lint` found: which rule, how much it matters, where, and what to do about it.
public struct LintFinding: Sendable, Hashable {
    public var rule: LintRule
    public var severity: LintSeverity
    /// The file as the user named it (the input path, joined with the path inside a folder input).
    public var file: String
    /// 1-based; `nil` when the file has no lines to point at (a binary property list, a missing file).
    public var line: Int?
    /// 1-based, in Unicode scalars; `nil` when unknown.
    public var column: Int?
    /// What is wrong and what to do, one sentence or two, without a final period.
    public var message: String

    public init(
        _ rule: LintRule, severity: LintSeverity? = nil, file: String, line: Int? = nil, column: Int? = nil, message: String
    ) {
        self.rule = rule
        self.severity = severity ?? rule.defaultSeverity
        self.file = file
        self.line = line
        self.column = line == nil ? nil : column
        self.message = message
    }

    /// Orders findings by file, then position, then rule, so output is the same on every run.
    static func precedes(_ lhs: LintFinding, _ rhs: LintFinding) -> Bool {
        if lhs.file != rhs.file { return lhs.file < rhs.file }
        if lhs.line != rhs.line { return (lhs.line ?? 0) < (rhs.line ?? 0) }
        if lhs.column != rhs.column { return (lhs.column ?? 0) < (rhs.column ?? 0) }
        if lhs.rule != rhs.rule { return lhs.rule < rhs.rule }
        return lhs.message < rhs.message
    }
}

/// An input that cannot be linted, with the finding that says why.
struct UnreadableInput: Error {
    var finding: LintFinding
}
