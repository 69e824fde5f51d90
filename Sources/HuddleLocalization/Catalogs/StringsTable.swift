/// The pairs of a `.strings` file, where each key is written, and the keys it defines more than once.
struct StringsTable {
    var entries: [String: String] = [:]
    /// Where each key's last definition starts (absent in binary property lists).
    var locations: [String: SourceLocation] = [:]
    /// Each repeated key with where its later definition starts (`nil` in binary property lists).
    var repeatedKeys: [(key: String, line: Int?, column: Int?)] = []

    /// The pairs added, repeated keys included.
    private(set) var count = 0

    mutating func add(key: String, value: String, line: Int?, column: Int? = nil) {
        count += 1
        if entries.updateValue(value, forKey: key) != nil { repeatedKeys.append((key, line, column)) }
        if let location = SourceLocation(line: line, column: column) { locations[key] = location }
    }
}
