/// A wait for something to happen, bounded: what requests that wait for what they check (`wait=`) share.
enum EventDeadline {
    /// Whether `event` reports that it happened (returns `true`) within `limit`; it is cancelled when the
    /// time is up, and must then end.
    static func happens(within limit: Duration, _ event: @escaping @Sendable () async -> Bool) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await event() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
