/// A JSON value with the place it was written, so String Catalog errors can give a line and a column
/// (Foundation's `JSONSerialization` gives neither for values of the wrong type, and objects lose their
/// order).
struct JSONNode {
    enum Value {
        case object([(key: String, value: JSONNode)])
        case array([JSONNode])
        case string(String)
        /// The number as written; callers convert it to what they need.
        case number(String)
        case bool(Bool)
        case null

        /// For errors: "an object", "a string"…
        var kindDescription: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    var value: Value
    var line: Int
    var column: Int

    /// The member named `key` of an object (the last one if the key is repeated, as `JSONSerialization`
    /// does), or `nil`.
    subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.last { $0.key == key }?.value
    }
}
