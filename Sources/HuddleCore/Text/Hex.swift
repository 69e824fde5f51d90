extension Collection<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits a byte (device tokens, secrets' hashes, UUIDs).
    public var lowercaseHex: String {
        String(unsafeUninitializedCapacity: count * 2) { text in
            var position = 0
            for byte in self {
                text[position] = lowercaseHexDigits[Int(byte >> 4)]
                text[position + 1] = lowercaseHexDigits[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }
}

private let lowercaseHexDigits = Array("0123456789abcdef".utf8)
