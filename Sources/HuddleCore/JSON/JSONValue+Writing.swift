extension JSONValue {
    /// The value as JSON text, members in their stored order.
    /// - Parameter pretty: two-space indentation and one member per line, for people; compact otherwise.
    public func jsonText(pretty: Bool = false) -> String {
        String(decoding: jsonUTF8(pretty: pretty), as: UTF8.self)
    }

    /// The value as JSON text in UTF-8 bytes, for writing to a socket or file without making a `String`.
    ///
    /// Written byte by byte into one buffer, copying each string's runs of characters that need no escape
    /// at once: a rendered center of thousands of notifications is mostly such runs.
    public func jsonUTF8(pretty: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(into output: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): output.append(contentsOf: Self.format(value).utf8)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            guard !elements.isEmpty else { output.append(contentsOf: "[]".utf8); return }
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { Self.newline(&output, indent: indent + 1) }
                element.write(into: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else { output.append(contentsOf: "{}".utf8); return }
            output.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { Self.newline(&output, indent: indent + 1) }
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                member.value.write(into: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], indent: Int) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    private static func format(_ value: Double) -> String {
        // Whole numbers print without a fraction so 0.5 and 1 read as people write them.
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A string in quotes. Only ASCII bytes can need escaping (every byte of a multi-byte UTF-8 sequence is
    /// 0x80 or more), so the bytes between them are copied as they are.
    private static func writeString(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(of: byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
        case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
        case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        default:
            let digits = Array("0123456789abcdef".utf8)
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
    }
}
