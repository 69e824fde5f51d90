import NIOCore

/// A wait for something to happen, bounded: what requests that wait for what they check (`wait=`) share.
enum EventDeadline {
    /// How often a wait looks whether its client is still there.
    static let departureCheckInterval = Duration.milliseconds(200)

    /// Whether `event` reports that it happened (returns `true`) within `limit`, while the client's `channel` (an
    /// HTTP/2 stream's, or an HTTP/1.1 connection's) stays open. Once the time is up or the client has gone (its
    /// stream reset, its connection closed), `event` is cancelled, and must then end; so a wait holds its slot
    /// no longer than its client wants the answer.
    ///
    /// The channel is looked at every ``departureCheckInterval`` rather than told to call back on close: a
    /// callback would stay on a kept-alive connection after each wait on it ended.
    static func happens(within limit: Duration, whileOpen channel: any Channel, _ event: @escaping @Sendable () async -> Bool) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await event() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            group.addTask {
                while channel.isActive {
                    do { try await Task.sleep(for: departureCheckInterval) } catch { break }
                }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
