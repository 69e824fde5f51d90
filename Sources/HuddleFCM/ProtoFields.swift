import HuddleCore

/// A protocol buffer message in its JSON form, as Google's front end reads one: fields by their proto name, written
/// in snake_case or lowerCamelCase (the proto3 JSON mapping takes both; the Admin SDKs send snake_case), a `null`
/// as absent, an unknown field refused. Errors name the field as FCM does (`message.android.ttl`) and say what is
/// wrong in Google's words.
struct ProtoFields {
    let path: String
    private let values: [String: JSONValue]

    /// - Throws: ``FCMError`` for a value that is not an object, or a field the message does not have.
    init(_ value: JSONValue, path: String, fields: Set<String>) throws(FCMError) {
        guard case .object(let object) = value else {
            throw FCMError.malformed(field: path, "Invalid value at '\(path)' (type.googleapis.com/\(path)), \(value.jsonText().prefix(64))")
        }
        self.path = path
        var values: [String: JSONValue] = [:]
        for (key, member) in object.members {
            let name = fields.contains(key) ? key : Self.snakeCase(key)
            guard fields.contains(name) else {
                throw FCMError.malformed(
                    field: path, "Invalid JSON payload received. Unknown name \"\(key.prefix(64))\" at '\(path)': Cannot find field.")
            }
            // A repeated field name: the last wins, as Google's page says.
            if member != .null { values[name] = member } else { values[name] = nil }
        }
        self.values = values
    }

    /// `collapseKey` as `collapse_key`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, character.isASCII {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    func has(_ name: String) -> Bool { values[name] != nil }

    func raw(_ name: String) -> JSONValue? { values[name] }

    func string(_ name: String) throws(FCMError) -> String? {
        guard let value = values[name] else { return nil }
        guard case .string(let string) = value else { throw wrongType(name, "TYPE_STRING", value) }
        return string
    }

    func bool(_ name: String) throws(FCMError) -> Bool? {
        guard let value = values[name] else { return nil }
        guard case .bool(let bool) = value else { throw wrongType(name, "TYPE_BOOL", value) }
        return bool
    }

    /// An int32, as a number or a string of digits (the JSON mapping's two forms).
    func int32(_ name: String) throws(FCMError) -> Int? {
        guard let value = values[name] else { return nil }
        switch value {
        case .integer(let integer) where Int64(Int32.min)...Int64(Int32.max) ~= integer: return Int(integer)
        case .string(let text): if let number = Int32(text) { return Int(number) }
        default: break
        }
        throw wrongType(name, "TYPE_INT32", value)
    }

    func stringList(_ name: String, maximum: Int) throws(FCMError) -> [String] {
        guard let value = values[name] else { return [] }
        guard case .array(let elements) = value else { throw wrongType(name, "TYPE_STRING", value) }
        guard elements.count <= maximum else { throw FCMError.invalid(field: "\(path).\(name)", "more than \(maximum) values") }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let string) = element else { throw wrongType("\(name)[\(index)]", "TYPE_STRING", element) }
            strings.append(string)
        }
        return strings
    }

    /// A `map<string, string>`: a value that is not a string is refused at its place, `message.data[0].value`.
    func stringMap(_ name: String, maximumEntries: Int) throws(FCMError) -> [String: String]? {
        guard let value = values[name] else { return nil }
        guard case .object(let object) = value else { throw wrongType(name, "TYPE_MESSAGE", value) }
        guard object.count <= maximumEntries else { throw FCMError.invalid(field: "\(path).\(name)", "more than \(maximumEntries) entries") }
        var map: [String: String] = [:]
        for (index, member) in object.members.enumerated() {
            guard case .string(let string) = member.value else { throw wrongType("\(name)[\(index)].value", "TYPE_STRING", member.value) }
            map[member.key] = string
        }
        return map
    }

    func object(_ name: String, fields: Set<String>) throws(FCMError) -> ProtoFields? {
        guard let value = values[name] else { return nil }
        return try ProtoFields(value, path: "\(path).\(name)", fields: fields)
    }

    /// Google's words for a value of the wrong type: `Invalid value at 'message.data[0].value' (TYPE_STRING), 12`.
    func wrongType(_ name: String, _ type: String, _ value: JSONValue) -> FCMError {
        let field = "\(path).\(name)"
        return FCMError.malformed(field: field, "Invalid value at '\(field)' (\(type)), \(value.jsonText().prefix(64))")
    }
}
