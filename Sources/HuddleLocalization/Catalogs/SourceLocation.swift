/// Where something is written in a file: a 1-based line, and the 1-based column in Unicode scalars when
/// the reader knows it. Binary property lists have neither, so their entries have no location.
public struct SourceLocation: Sendable, Hashable {
    public var line: Int
    public var column: Int?

    public init(line: Int, column: Int? = nil) {
        self.line = line
        self.column = column
    }

    /// A location from a reader's optional line and column; `nil` without a line.
    init?(line: Int?, column: Int?) {
        guard let line else { return nil }
        self.init(line: line, column: column)
    }
}
