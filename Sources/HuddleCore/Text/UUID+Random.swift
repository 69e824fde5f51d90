public import Foundation

extension UUID {
    /// A new random (version 4) UUID as lowercase text, the form of the `apns-id` APNs answers with.
    ///
    /// The same as `UUID().uuidString.lowercased()`, at a quarter of its cost: on Linux Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` for every identifier, and every push that comes without an
    /// `apns-id` needs one.
    public static func randomLowercasedString() -> String {
        var generator = SystemRandomNumberGenerator()
        // RFC 9562: the version (4) in the high nibble of byte 6, the variant (binary 10) in the top bits of
        // byte 8; the bytes are read big-endian from `high` then `low`.
        let high = (generator.next() as UInt64) & ~0xF000 | 0x4000
        let low = (generator.next() as UInt64) & ~(0xC0 << 56) | (0x80 << 56)
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = digit < 16 ? high : low
                let nibble = Int(truncatingIfNeeded: word >> UInt64(60 - 4 * (digit % 16))) & 0xF
                text[position] = lowercaseHexDigits[nibble]
                position += 1
            }
            return position
        }
    }
}

private let lowercaseHexDigits = Array("0123456789abcdef".utf8)
