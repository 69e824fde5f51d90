import Metrics

/// The server's own metrics, beside the provider requests the endpoint counts (shown at `/metrics`).
enum ServerMetrics {
    private static let deliveries = Counter(label: "huddle_deliveries_total")
    private static let removals = Counter(label: "huddle_removals_total")
    private static let liveStreams = Meter(label: "huddle_live_streams")
    private static let followedChanges = Counter(label: "huddle_followed_changes_total")
    private static let commits = Counter(label: "huddle_group_commits_total")
    private static let committedWrites = Counter(label: "huddle_group_committed_writes_total")
    private static let waitingWrites = Meter(label: "huddle_group_commit_waiting_writes")

    /// A notification this server stored and delivered (a push or a local notification).
    static func delivered() { deliveries.increment() }
    /// Notifications this server removed (dismissed, cleared).
    static func removed(_ count: Int) { removals.increment(by: count) }
    /// A live stream of a center opened or closed.
    static func streamOpened() { liveStreams.increment() }
    static func streamClosed() { liveStreams.decrement() }
    /// A change committed by another server sharing the store, applied here to follow it.
    static func followedChange() { followedChanges.increment() }
    /// A transaction of the commit queue, with its writes: their ratio is the mean batch.
    static func committedBatch(of writes: Int) {
        commits.increment()
        committedWrites.increment(by: writes)
    }

    /// How many writes wait for the commit queue's next transaction.
    @Sendable static func writesWaiting(_ count: Int) { waitingWrites.set(count) }

    /// Measures a store operation: `huddle_store_duration_seconds{operation=…}`. Runs `body` in the
    /// caller's isolation (a device session's).
    static func timeStore<Value>(
        _ operation: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Value
    ) async rethrows -> Value {
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            Timer(label: "huddle_store_duration_seconds", dimensions: [("operation", operation)], preferredDisplayUnit: .seconds)
                .recordNanoseconds(nanoseconds)
        }
        return try await body()
    }
}
