import Logging
import NIOCore
import Synchronization

/// The count of a server's open connections, which refuses new ones past its maximum: each holds memory
/// and a file descriptor, and a client could otherwise open them until the process runs out.
final class ConnectionLimit: Sendable {
    struct Refused: Error {}

    let maximum: Int
    private let open = Atomic<Int>(0)
    private let closed = Atomic<Int>(0)
    /// When a refusal was last logged, so that a flood of connections does not flood the log too.
    private let lastWarning = Mutex<ContinuousClock.Instant?>(nil)
    private let logger: Logger

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// Counts a new connection until `closed` completes; `false` (not counted) when the server is full.
    func open(closingWith closed: EventLoopFuture<Void>) -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count <= maximum else {
            open.wrappingSubtract(1, ordering: .relaxed)
            warnOfRefusal()
            return false
        }
        closed.whenComplete { _ in
            self.open.wrappingSubtract(1, ordering: .relaxed)
            self.closed.wrappingAdd(1, ordering: .relaxed)
        }
        return true
    }

    /// The connections that closed since the server started (``MemoryReturn`` looks at it).
    var closedInAll: Int { closed.load(ordering: .relaxed) }

    private func warnOfRefusal() {
        let now = ContinuousClock.now
        let shouldWarn = lastWarning.withLock { last in
            guard last.map({ now - $0 > .seconds(10) }) ?? true else { return false }
            last = now
            return true
        }
        if shouldWarn { logger.warning("refusing connections: \(maximum) are open, the most allowed (--max-connections)") }
    }
}
