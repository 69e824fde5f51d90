/// Runs async operations one after another, in the order they were submitted.
///
/// A device's writes go through one: the stamp, the commit and the delivery of one push must not
/// interleave with another's, or the database and the center could disagree about which of two
/// notifications with one identifier came last.
actor SerialQueue {
    private var last: Task<Void, Never>?

    func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let previous = last
        let task = Task {
            await previous?.value
            return try await operation()
        }
        last = Task { _ = try? await task.value }
        return try await task.value
    }
}
