public import Foundation

extension UUID {
    /// A new random (version 4) UUID as lowercase text, the form of the `apns-id` APNs answers with.
    ///
    /// The same as `UUID().uuidString.lowercased()`, at a third of its cost: on Linux Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` for every identifier, and every push that comes without an
    /// `apns-id` needs one.
    public static func randomLowercasedString() -> String {
        var generator = SystemRandomNumberGenerator()
        // RFC 9562: the version (4) in the high nibble of byte 6, the variant (binary 10) in the top bits of
        // byte 8.
        let high = (generator.next() as UInt64) & ~0xF000 | 0x4000
        let low = (generator.next() as UInt64) & ~(0xC0 << 56) | (0x80 << 56)
        // Written in place, 8-4-4-4-12 digits: one allocation for the text and nothing else.
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var written = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        text[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    text[written] = digits.utf8Start[Int(byte >> 4)]
                    text[written + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    written += 2
                }
                return written
            }
        }
    }
}
