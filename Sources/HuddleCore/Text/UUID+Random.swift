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
        let bytes = withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Array($0) }
        return "\(bytes[0..<4].lowercaseHex)-\(bytes[4..<6].lowercaseHex)-\(bytes[6..<8].lowercaseHex)-"
            + "\(bytes[8..<10].lowercaseHex)-\(bytes[10..<16].lowercaseHex)"
    }
}
