/// A position inside a JSON document, used to read typed fields and to name the key path of a wrong one.
///
/// Every error says where it happened (`aps.alert.title-loc-args[1]: expected a string, found a number`),
/// so whoever wrote the payload or scenario can fix it without guessing.
public struct JSONReader: Sendable {
    public let value: JSONValue
    /// The key path from the document's root, empty at the root.
    public let path: String

    public init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    /// The member `key` of this object, or `nil` when absent. JSON `null` counts as absent.
    public func optionalMember(_ key: String) throws(JSONReadError) -> JSONReader? {
        guard case .object(let object) = value else { throw mismatch("an object") }
        guard let member = object[key], member != .null else { return nil }
        return JSONReader(member, path: childPath(key))
    }

    /// The member `key` of this object; its absence is an error.
    public func member(_ key: String) throws(JSONReadError) -> JSONReader {
        guard let member = try optionalMember(key) else {
            throw JSONReadError(path: childPath(key), message: "is missing")
        }
        return member
    }

    public func object() throws(JSONReadError) -> JSONObject {
        guard case .object(let object) = value else { throw mismatch("an object") }
        return object
    }

    public func string() throws(JSONReadError) -> String {
        guard case .string(let string) = value else { throw mismatch("a string") }
        return string
    }

    public func bool() throws(JSONReadError) -> Bool {
        guard case .bool(let bool) = value else { throw mismatch("a boolean") }
        return bool
    }

    /// An integer; `3.0` is accepted as 3, `3.5` is not.
    public func integer() throws(JSONReadError) -> Int {
        switch value {
        case .integer(let integer) where integer >= Int64(Int.min) && integer <= Int64(Int.max):
            return Int(integer)
        case .double(let double) where double == double.rounded() && abs(double) < 9e15:
            return Int(double)
        case .integer, .double:
            throw JSONReadError(path: path, message: "expected an integer, found \(Self.describeNumber(value))")
        default:
            throw mismatch("an integer")
        }
    }

    public func number() throws(JSONReadError) -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        default: throw mismatch("a number")
        }
    }

    public func array() throws(JSONReadError) -> [JSONReader] {
        guard case .array(let elements) = value else { throw mismatch("an array") }
        return elements.enumerated().map { JSONReader($0.element, path: "\(path)[\($0.offset)]") }
    }

    /// The members of this object, each as a reader with its own path.
    public func members() throws(JSONReadError) -> [(key: String, reader: JSONReader)] {
        try object().members.map { ($0.key, JSONReader($0.value, path: childPath($0.key))) }
    }

    /// Fails when the object has a member that is not in `known`: a misspelt key is a silent bug otherwise.
    public func rejectUnknownMembers(_ known: Set<String>) throws(JSONReadError) {
        for key in try object().keys where !known.contains(key) {
            throw JSONReadError(path: childPath(key), message: "is not a known key (expected one of: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// A failure at this position.
    public func failure(_ message: String) -> JSONReadError {
        JSONReadError(path: path, message: message)
    }

    private func mismatch(_ expected: String) -> JSONReadError {
        JSONReadError(path: path, message: "expected \(expected), found \(value.kindDescription)")
    }

    private func childPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    private static func describeNumber(_ value: JSONValue) -> String {
        switch value {
        case .double(let double): "\(double)"
        case .integer(let integer): "\(integer)"
        default: value.kindDescription
        }
    }
}

/// A JSON value of the wrong type or shape, with the key path where it sits.
public struct JSONReadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    /// The same error, placed under `prefix` (used when a payload sits inside a scenario event).
    public func nested(under prefix: String) -> JSONReadError {
        JSONReadError(path: path.isEmpty ? prefix : "\(prefix).\(path)", message: message)
    }
}
