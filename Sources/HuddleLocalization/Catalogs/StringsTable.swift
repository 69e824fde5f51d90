/// The pairs of a `.strings` file, and the keys it defines more than once.
struct StringsTable {
    var entries: [String: String] = [:]
    /// Each repeated key with the line of its later definition (`nil` in binary property lists).
    var repeatedKeys: [(key: String, line: Int?)] = []

    /// The pairs added, repeated keys included.
    private(set) var count = 0

    mutating func add(key: String, value: String, line: Int?) {
        count += 1
        if entries.updateValue(value, forKey: key) != nil { repeatedKeys.append((key, line)) }
    }
}
