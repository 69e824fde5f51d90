/// A map from strings to values, tuned for the few keys a group holds (its categories, its summary
/// arguments): a linear scan of an array while small, a hash index once it grows. Keys are compared by
/// their Unicode scalars (``ExactString``), as behavior.md section 7 asks of summary arguments.
///
/// Comparing a handful of short strings is cheaper than hashing one, and a group is updated on every
/// delivery, so this saves most of the hashing a dictionary would do on the hot path.
struct SmallStringMap<Value: Sendable>: Sendable {
    /// Past this many keys, lookups go through `index`.
    static var indexThreshold: Int { 12 }

    private(set) var keys: [String] = []
    private(set) var values: [Value] = []
    private var index: [ExactString: Int]?

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }

    func position(of key: String) -> Int? {
        if let index { return index[ExactString(key)] }
        return keys.firstIndex { $0.isExactlyEqual(to: key) }
    }

    subscript(key: String) -> Value? {
        position(of: key).map { values[$0] }
    }

    /// Changes the value for `key`, inserting `defaultValue()` first if the key is new.
    mutating func modify<Result>(_ key: String, default defaultValue: () -> Value, _ body: (inout Value) -> Result) -> Result {
        if let position = position(of: key) {
            return body(&values[position])
        }
        keys.append(key)
        values.append(defaultValue())
        if index != nil {
            index?[ExactString(key)] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            index = Dictionary(uniqueKeysWithValues: keys.enumerated().map { (ExactString($1), $0) })
        }
        return body(&values[values.count - 1])
    }

    /// Changes the value for an existing key; returns `nil` and does nothing for a missing one.
    mutating func modifyExisting<Result>(_ key: String, _ body: (inout Value) -> Result) -> Result? {
        guard let position = position(of: key) else { return nil }
        return body(&values[position])
    }

    /// Removes a key by moving the last entry into its place (order is not kept).
    mutating func remove(_ key: String) {
        guard let position = position(of: key) else { return }
        let last = keys.count - 1
        if position != last {
            keys.swapAt(position, last)
            values.swapAt(position, last)
            index?[ExactString(keys[position])] = position
        }
        index?[ExactString(keys[last])] = nil
        keys.removeLast()
        values.removeLast()
        if let current = index, current.count <= Self.indexThreshold / 2 { index = nil }
    }

    /// The entries, in no particular order.
    var entries: Zip2Sequence<[String], [Value]> { zip(keys, values) }
}
