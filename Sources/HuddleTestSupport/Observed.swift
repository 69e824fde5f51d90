import Synchronization

/// A value that the code under test reports as it changes, and a wait for the moment it satisfies a
/// condition, with a deadline: what a test waits on instead of sleeping or spinning.
public final class Observed<Value: Sendable>: Sendable {
    private struct Waiter {
        var id: Int
        var condition: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(_ initial: Value) {
        state = Mutex(State(value: initial))
    }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Changes the value, and wakes every wait whose condition now holds.
    public func update(_ change: @Sendable (inout Value) -> Void) {
        let satisfied = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            change(&state.value)
            let value = state.value
            let (met, waiting) = (state.waiters.filter { $0.condition(value) }, state.waiters.filter { !$0.condition(value) })
            state.waiters = waiting
            return met.map(\.continuation)
        }
        for continuation in satisfied { continuation.resume(returning: true) }
    }

    /// Waits until `condition` holds of the value (at once when it holds already), for at most `limit`.
    /// - Returns: whether it came to hold in time.
    public func wait(atMost limit: Duration = .seconds(30), until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let holds = self.state.withLock { state in
                        guard !condition(state.value) else { return true }
                        state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                        return false
                    }
                    if holds { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                // Too late (or no longer needed): the wait, if still registered, ends unmet.
                let late = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                late?.resume(returning: false)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
