import HuddleCore
import Logging
import ServiceLifecycle

/// The centers of the devices a server has seen, loaded from the store on first use and kept in memory,
/// so that reading a center renders from running totals instead of scanning stored notifications.
///
/// At most ``maximumSessions`` are kept: past that, the least recently used ones that nobody watches (no
/// live stream open) are let go, and load again when next asked for.
actor DeviceCenters {
    let store: any NotificationStore
    let maximumSessions: Int
    /// The most notifications one app keeps on a device; past that, its oldest go.
    let notificationsPerApp: Int
    /// Every session's deliveries and removals, committed together.
    let commits: CommitQueue
    private let logger: Logger
    private var sessions: [String: DeviceSession] = [:]
    private var loading: [String: Task<DeviceSession?, any Error>] = [:]
    /// When each session was last asked for, as a count of requests.
    private var lastUse: [String: UInt64] = [:]
    private var uses: UInt64 = 0

    init(
        store: any NotificationStore, maximumSessions: Int = 10_000,
        notificationsPerApp: Int = ServerConfiguration.Limits().notificationsPerApp, logger: Logger = Logger(label: "huddle.devices")
    ) {
        self.store = store
        self.maximumSessions = max(1, maximumSessions)
        self.notificationsPerApp = notificationsPerApp
        self.logger = logger
        commits = CommitQueue(store: store, logger: logger)
    }

    /// A device's session, or `nil` for a token the store does not know.
    func session(for token: String) async throws -> DeviceSession? {
        uses += 1
        lastUse[token] = uses
        defer { if sessions[token] == nil { lastUse[token] = nil } }
        if let session = sessions[token] { return session }
        // Concurrent first requests for one device share a single load.
        let task = loading[token] ?? Task { [store, commits, notificationsPerApp, logger] in
            try await DeviceSession.load(
                token: token, store: store, commits: commits, notificationsPerApp: notificationsPerApp, logger: logger)
        }
        loading[token] = task
        defer { loading[token] = nil }
        let session = try await task.value
        if let session, sessions[token] == nil {
            sessions[token] = session
            letIdleSessionsGo()
        }
        return sessions[token] ?? session
    }

    /// Forgets a device (after it was deleted), ending its live streams.
    func forget(_ token: String) {
        sessions.removeValue(forKey: token)?.subscribers.endAll()
        lastUse[token] = nil
    }

    /// Over the limit, lets go of the least recently used tenth of the sessions nobody watches, so that
    /// the sorting is paid once per many loads. A request still holding one finishes with it; the session
    /// stays correct on its own, as a second server's would.
    private func letIdleSessionsGo() {
        guard sessions.count > maximumSessions else { return }
        let idle = sessions.filter { !$0.value.isWatched }.keys.sorted { lastUse[$0, default: 0] < lastUse[$1, default: 0] }
        for token in idle.prefix(sessions.count - maximumSessions + maximumSessions / 10) {
            sessions[token] = nil
            lastUse[token] = nil
        }
    }

    /// The sessions loaded now.
    var loadedSessions: [DeviceSession] { Array(sessions.values) }

    /// Follows the changes other servers commit to a shared store, so that this server's centers and live
    /// streams show them too. Returns when the notices end (at shutdown).
    func follow(_ notices: AsyncStream<ChangeNotice>, logger: Logger) async {
        for await notice in notices {
            switch notice {
            case .changed(let token, let number):
                guard let session = sessions[token] else { continue }
                await catchUp(session, through: number, logger: logger)
            case .deviceDeleted(let token):
                forget(token)
            case .resync:
                for session in sessions.values { await catchUp(session, through: .max, logger: logger) }
            }
        }
    }

    private func catchUp(_ session: DeviceSession, through number: UInt64, logger: Logger) async {
        do {
            try await session.catchUp(through: number)
        } catch is CancellationError {
            // The server is shutting down.
        } catch {
            // The next change or notice tries again.
            logger.error("cannot follow device \(session.token): \(error)")
        }
    }
}

/// Keeps a server's centers in step with a store that other servers write to, and its live streams awake.
struct DeviceCentersService: Service {
    let centers: DeviceCenters
    let logger: Logger
    /// How often every open stream gets a heartbeat comment.
    let heartbeatInterval: Duration

    func run() async throws {
        // Until graceful shutdown or cancellation (a stream, which cannot miss either; see
        // PostgresNotificationStore.run()).
        let (stopRequests, requestStop) = AsyncStream<Void>.makeStream()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                if let notices = centers.store.noticesFromOtherServers() {
                    group.addTask { await centers.follow(notices, logger: logger) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: heartbeatInterval)
                        for session in await centers.loadedSessions { session.subscribers.heartbeat() }
                    }
                }
                for await _ in stopRequests {}
                group.cancelAll()
            }
        } onGracefulShutdown: {
            requestStop.finish()
        }
    }
}
