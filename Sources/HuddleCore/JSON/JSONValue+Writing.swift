extension JSONValue {
    /// The value as JSON text, members in their stored order.
    /// - Parameter pretty: two-space indentation and one member per line, for people; compact otherwise.
    public func jsonText(pretty: Bool = false) -> String {
        var output = ""
        write(into: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(into output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .double(let value): output += Self.format(value)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                if pretty { Self.newline(&output, indent: indent + 1) }
                element.write(into: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent: indent) }
            output += "]"
        case .object(let object):
            guard !object.isEmpty else { output += "{}"; return }
            output += "{"
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { output += "," }
                if pretty { Self.newline(&output, indent: indent + 1) }
                Self.writeString(member.key, into: &output)
                output += pretty ? ": " : ":"
                member.value.write(into: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent: indent) }
            output += "}"
        }
    }

    private static func newline(_ output: inout String, indent: Int) {
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    private static func format(_ value: Double) -> String {
        // Whole numbers print without a fraction so 0.5 and 1 read as people write them.
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func writeString(_ string: String, into output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
