/// A printf-style format string from an app or a payload, split into text and the few conversions Huddle
/// accepts.
///
/// Formats are untrusted: they are never handed to `String(format:)`. Only these conversions are
/// recognised, every other one is refused with its text and position:
/// - integers: `%u`, `%d`, `%i`, `%lu`, `%ld`, `%li`, `%lld`, `%llu`, `%lli`;
/// - strings: `%@`;
/// - stringsdict plural variables: `%#@name@`;
/// - any of them positional (`%2$@`, `%1$#@count@`), and `%%` for a percent sign.
public struct FormatTemplate: Sendable, Hashable {
    /// The highest argument position a conversion may name (`%16$@`). Formats come from strangers, and a
    /// position is used to index and count arguments: no real format has more than a handful (a summary
    /// format two, an alert as many as its `loc-args`), so anything past this is refused rather than
    /// carried into arithmetic.
    public static let maximumArgumentPosition = 32

    public enum Piece: Sendable, Hashable {
        case text(String)
        case conversion(FormatConversion)
    }

    public let source: String
    public let pieces: [Piece]

    /// Splits `source` into pieces.
    /// - Throws: ``FormatError`` naming the first conversion that is not allowed, and where it starts.
    /// - Complexity: O(n) in the length of `source`.
    public init(_ source: String) throws(FormatError) {
        self.source = source
        var pieces: [Piece] = []
        var text = ""
        var scalars = Array(source.unicodeScalars)[...]
        var offset = 0
        while let scalar = scalars.first {
            guard scalar == "%" else {
                text.unicodeScalars.append(scalar)
                scalars.removeFirst()
                offset += 1
                continue
            }
            let start = scalars
            if scalars.dropFirst().first == "%" {
                text += "%"
                scalars.removeFirst(2)
                offset += 2
                continue
            }
            let conversion = try Self.lexConversion(&scalars, offset: offset)
            offset += start.count - scalars.count
            if !text.isEmpty {
                pieces.append(.text(text))
                text = ""
            }
            pieces.append(.conversion(conversion))
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The conversions in order of appearance.
    public var conversions: [FormatConversion] {
        pieces.compactMap { if case .conversion(let conversion) = $0 { conversion } else { nil } }
    }

    /// Lexes one conversion starting at a `%`; leaves `scalars` after it.
    private static func lexConversion(
        _ scalars: inout ArraySlice<Unicode.Scalar>, offset: Int
    ) throws(FormatError) -> FormatConversion {
        let start = scalars
        scalars.removeFirst()  // %
        var position: Int?
        // A run of digits followed by `$` is a position; a run without `$` is a width, refused below.
        let digits = scalars.prefix(while: { ("0"..."9").contains($0) })
        if !digits.isEmpty, scalars.dropFirst(digits.count).first == "$" {
            // More digits than the cap has can only be refused, and need not be read as a number at all.
            guard digits.count <= 2, let value = Int(String(String.UnicodeScalarView(digits))),
                (1...maximumArgumentPosition).contains(value)
            else {
                throw FormatError(conversion: consumedText(start, scalars.dropFirst(digits.count + 1)), offset: offset, reason: .badPosition)
            }
            position = value
            scalars.removeFirst(digits.count + 1)
        }
        if scalars.first == "#", scalars.dropFirst().first == "@" {
            scalars.removeFirst(2)
            let name = scalars.prefix(while: { $0 != "@" })
            guard scalars.dropFirst(name.count).first == "@", !name.isEmpty else {
                throw FormatError(conversion: consumedText(start, scalars.dropFirst(name.count)), offset: offset, reason: .unterminatedVariable)
            }
            scalars.removeFirst(name.count + 1)
            return FormatConversion(
                position: position, kind: .pluralVariable(String(String.UnicodeScalarView(name))),
                text: consumedText(start, scalars), offset: offset)
        }
        if scalars.first == "@" {
            scalars.removeFirst()
            return FormatConversion(position: position, kind: .object, text: consumedText(start, scalars), offset: offset)
        }
        var length = ""
        while let scalar = scalars.first, scalar == "l", length.count < 2 {
            length.unicodeScalars.append(scalar)
            scalars.removeFirst()
        }
        if let scalar = scalars.first, ["u", "d", "i"].contains(scalar) {
            scalars.removeFirst()
            return FormatConversion(position: position, kind: .integer, text: consumedText(start, scalars), offset: offset)
        }
        // Not allowed: consume what printf would take as one conversion, so the error can quote it whole.
        var sawFlagsOrWidth = !digits.isEmpty && position == nil
        while let scalar = scalars.first, "-+ #0'123456789.*".unicodeScalars.contains(scalar) {
            sawFlagsOrWidth = true
            scalars.removeFirst()
        }
        while let scalar = scalars.first, "hlqLjzt".unicodeScalars.contains(scalar) { scalars.removeFirst() }
        guard let final = scalars.first else {
            throw FormatError(conversion: consumedText(start, scalars), offset: offset, reason: .incomplete)
        }
        scalars.removeFirst()
        let isAllowedLetter = ["u", "d", "i", "@"].contains(final)
        let reason: FormatError.Reason = sawFlagsOrWidth && isAllowedLetter ? .flagsNotAllowed : .notAllowed
        throw FormatError(conversion: consumedText(start, scalars), offset: offset, reason: reason)
    }

    private static func consumedText(_ start: ArraySlice<Unicode.Scalar>, _ rest: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(start.prefix(start.count - rest.count)))
    }
}

/// One conversion of a ``FormatTemplate``.
public struct FormatConversion: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `%u`, `%d`, `%i` and their `l`/`ll` forms: a number.
        case integer
        /// `%@`: a string.
        case object
        /// `%#@name@`: a stringsdict variable, replaced by the plural form chosen for its number.
        case pluralVariable(String)
    }

    /// The 1-based argument position written as `%n$`, or `nil` for the next argument in order.
    public var position: Int?
    public var kind: Kind
    /// The conversion as written (`%2$@`), for messages.
    public var text: String
    /// Where it starts in its format, in Unicode scalars from 0.
    public var offset: Int

    public init(position: Int?, kind: Kind, text: String = "", offset: Int = 0) {
        self.position = position
        self.kind = kind
        self.text = text
        self.offset = offset
    }
}

/// A conversion in a format that Huddle does not accept.
public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case notAllowed
        case flagsNotAllowed
        case incomplete
        case badPosition
        case unterminatedVariable
        /// A second count or string conversion, or one at a position that holds the other kind.
        case shape(String)
    }

    /// The offending conversion as written, e.g. `%s` or `%5u`.
    public var conversion: String
    /// Its position in the format, counted in Unicode scalars from 0.
    public var offset: Int
    public var reason: Reason

    public init(conversion: String, offset: Int, reason: Reason) {
        self.conversion = conversion
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        let quoted = "\"\(conversion)\" at offset \(offset)"
        switch reason {
        case .notAllowed:
            return "conversion \(quoted) is not allowed (only %u, %d, %i with l/ll, %@, %#@var@, positional %n$ forms and %% are)"
        case .flagsNotAllowed:
            return "conversion \(quoted) has width, precision or flags, which are not allowed"
        case .incomplete:
            return "conversion \(quoted) is incomplete: a lone % must be written %%"
        case .badPosition:
            return "conversion \(quoted) has an invalid position (positions run from 1 to \(FormatTemplate.maximumArgumentPosition))"
        case .unterminatedVariable:
            return "plural variable \(quoted) is not closed with @"
        case .shape(let detail):
            return "conversion \(quoted): \(detail)"
        }
    }
}
