import Foundation

/// Turns the bytes of a localization file into Unicode scalars, finding the encoding the way Apple's
/// tools accept it: UTF-8 with or without a byte order mark, or UTF-16 in either byte order.
///
/// UTF-16 without a byte order mark is recognised when the first kilobyte has zero bytes, mostly at odd
/// (little-endian) or mostly at even (big-endian) offsets: that is what text with ASCII punctuation looks
/// like in UTF-16, and UTF-8 text has no zero bytes.
enum CatalogTextDecoder {
    enum Encoding: Sendable, Equatable {
        case utf8
        case utf16LittleEndian
        case utf16BigEndian

        var name: String {
            switch self {
            case .utf8: "UTF-8"
            case .utf16LittleEndian: "UTF-16 (little-endian)"
            case .utf16BigEndian: "UTF-16 (big-endian)"
            }
        }
    }

    /// The encoding of `data` and the length of its byte order mark.
    static func detectEncoding(of data: Data) -> (encoding: Encoding, byteOrderMarkLength: Int) {
        let bytes = Array(data.prefix(1024))
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        guard bytes.count >= 2 else { return (.utf8, 0) }
        var zerosAtEven = 0
        var zerosAtOdd = 0
        for index in 0..<(bytes.count - bytes.count % 2) where bytes[index] == 0 {
            if index % 2 == 0 { zerosAtEven += 1 } else { zerosAtOdd += 1 }
        }
        // UTF-8 text has no zero bytes at all; Latin text in UTF-16 has one in (nearly) every code unit, on
        // the high byte's side.
        if zerosAtOdd > zerosAtEven { return (.utf16LittleEndian, 0) }
        if zerosAtEven > zerosAtOdd { return (.utf16BigEndian, 0) }
        return (.utf8, 0)
    }

    /// Decodes the whole file, without its byte order mark.
    /// - Throws: ``CatalogError`` for a file over ``CatalogLimits/maximumFileSize``, or at the line and
    ///   column of the first byte sequence that is not valid in the detected encoding; nothing is repaired,
    ///   because a replacement character in a translation is a bug the author wants to hear about.
    static func decode(_ data: Data, file: String) throws(CatalogError) -> [Unicode.Scalar] {
        try CatalogLimits.checkSize(data.count, file: file)
        let (encoding, byteOrderMarkLength) = detectEncoding(of: data)
        let body = data.dropFirst(byteOrderMarkLength)
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(encoding == .utf8 ? body.count : body.count / 2)
        var failed = false
        switch encoding {
        case .utf8:
            var units = body.makeIterator()
            var decoder = UTF8()
            failed = decodeAll(&units, with: &decoder, into: &scalars)
        case .utf16LittleEndian, .utf16BigEndian:
            var units = UTF16Units(bytes: body.makeIterator(), bigEndian: encoding == .utf16BigEndian)
            var decoder = UTF16()
            failed = decodeAll(&units, with: &decoder, into: &scalars) || units.hasOddByte
        }
        if failed {
            var cursor = ScalarCursor(scalars)
            cursor.advance(by: scalars.count)
            throw CatalogError(
                file: file, line: cursor.line, column: cursor.column,
                message: "the file is not valid \(encoding.name) text here")
        }
        return scalars
    }

    /// Decodes until the end or the first error; returns true on error.
    private static func decodeAll<Codec: UnicodeCodec, Units: IteratorProtocol>(
        _ units: inout Units, with decoder: inout Codec, into scalars: inout [Unicode.Scalar]
    ) -> Bool where Units.Element == Codec.CodeUnit {
        while true {
            switch decoder.decode(&units) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return false
            case .error: return true
            }
        }
    }
}

/// UTF-16 code units read from bytes in one byte order.
private struct UTF16Units: IteratorProtocol {
    var bytes: Data.Iterator
    let bigEndian: Bool
    /// Set when the data ends in the middle of a code unit.
    private(set) var hasOddByte = false

    init(bytes: Data.Iterator, bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    mutating func next() -> UInt16? {
        guard let first = bytes.next() else { return nil }
        guard let second = bytes.next() else {
            hasOddByte = true
            return nil
        }
        return bigEndian
            ? UInt16(first) << 8 | UInt16(second)
            : UInt16(second) << 8 | UInt16(first)
    }
}
