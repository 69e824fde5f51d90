/// A read position in decoded text that keeps count of lines and columns, shared by the hand-written
/// readers so that every error can say where it is.
///
/// Lines end at `\n`, `\r\n` or a lone `\r`; columns count Unicode scalars from 1.
struct ScalarCursor {
    let scalars: [Unicode.Scalar]
    private(set) var offset = 0
    private(set) var line = 1
    private(set) var column = 1

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    var isAtEnd: Bool { offset >= scalars.count }

    /// The scalar at the read position, or `nil` at the end.
    var current: Unicode.Scalar? { peek(0) }

    func peek(_ distance: Int) -> Unicode.Scalar? {
        let index = offset + distance
        return index < scalars.count ? scalars[index] : nil
    }

    mutating func advance() {
        guard let scalar = current else { return }
        offset += 1
        if scalar == "\n" || (scalar == "\r" && current != "\n") {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    mutating func advance(by count: Int) {
        for _ in 0..<count { advance() }
    }

    /// True when the text at the read position starts with `prefix`.
    func starts(with prefix: String) -> Bool {
        var distance = 0
        for scalar in prefix.unicodeScalars {
            guard peek(distance) == scalar else { return false }
            distance += 1
        }
        return true
    }

    /// Moves past `prefix` if the text starts with it.
    mutating func skip(_ prefix: String) -> Bool {
        guard starts(with: prefix) else { return false }
        advance(by: prefix.unicodeScalars.count)
        return true
    }

    mutating func skipWhitespace() {
        while let scalar = current, scalar.isWhitespace { advance() }
    }

    /// The read position, for errors that point back at where something started.
    var location: Location { Location(line: line, column: column) }

    struct Location: Sendable, Hashable {
        var line: Int
        var column: Int
    }
}

extension Unicode.Scalar {
    /// Unicode's White_Space property, answered without a property lookup for ASCII: the readers ask it
    /// of every scalar between values, and almost all of them are ASCII.
    var isWhitespace: Bool {
        value < 0x80 ? value == 0x20 || (0x09...0x0D).contains(value) : properties.isWhitespace
    }
}
