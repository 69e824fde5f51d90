import Foundation
import HuddleCore
import Logging
import Synchronization

/// The centers of the devices a server has seen, loaded from the store on first use and kept in memory,
/// so that reading a center renders from running totals instead of scanning stored notifications.
///
/// A table under a lock rather than an actor: finding a loaded session, which every push and read does
/// first, takes the lock for a lookup and never waits behind another device's work.
///
/// At most ``maximumSessions`` are kept: past that, the least recently used ones that nobody watches (no
/// live stream open) are let go, and load again when next asked for.
final class DeviceCenters: Sendable {
    let store: any NotificationStore
    let maximumSessions: Int
    /// The most notifications one app keeps on a device; past that, its oldest go.
    let notificationsPerApp: Int
    /// Every session's deliveries and removals, committed together.
    let commits: CommitQueue
    /// The server's clock, which each session's renderings read (a scheduled Focus, the page's times).
    let clock: @Sendable () -> Date
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var sessions: [String: DeviceSession] = [:]
        /// Loads under way: concurrent first requests for one device share one.
        var loading: [String: Task<DeviceSession?, any Error>] = [:]
        /// When each session was last asked for, as a count of requests.
        var lastUse: [String: UInt64] = [:]
        var uses: UInt64 = 0
    }

    /// - Parameter writerExecutor: where the commit queue's writer runs (``CommitQueue``); nil for Swift's pool.
    init(
        store: any NotificationStore, maximumSessions: Int = 10_000,
        notificationsPerApp: Int = ServerConfiguration.Limits().notificationsPerApp, writerExecutor: (any TaskExecutor)? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "huddle.devices")
    ) {
        self.store = store
        self.clock = clock
        self.maximumSessions = max(1, maximumSessions)
        self.notificationsPerApp = notificationsPerApp
        self.logger = logger
        commits = CommitQueue(store: store, writerExecutor: writerExecutor, logger: logger)
    }

    /// A device's session, or `nil` for a token the store does not know.
    func session(for token: String) async throws -> DeviceSession? {
        let (loaded, load) = state.withLock { state -> (DeviceSession?, Task<DeviceSession?, any Error>?) in
            state.uses += 1
            if let session = state.sessions[token] {
                state.lastUse[token] = state.uses
                return (session, nil)
            }
            let load = state.loading[token] ?? Task { [store, commits, notificationsPerApp, clock, logger] in
                try await DeviceSession.load(
                    token: token, store: store, commits: commits, notificationsPerApp: notificationsPerApp, clock: clock, logger: logger)
            }
            state.loading[token] = load
            return (nil, load)
        }
        if let loaded { return loaded }
        guard let load else { return nil }
        let result = await load.result
        return try state.withLock { state in
            // Only the load still on record is kept: a device forgotten meanwhile (deleted) is not put back.
            let isCurrent = state.loading[token] == load
            if isCurrent { state.loading[token] = nil }
            if let session = state.sessions[token] { return session }
            guard let session = try result.get() else { return nil }
            guard isCurrent else { return session }
            state.sessions[token] = session
            state.lastUse[token] = state.uses
            Self.letIdleSessionsGo(&state, maximum: maximumSessions)
            return session
        }
    }

    /// Forgets a device (after it was deleted), ending its live streams.
    func forget(_ token: String) {
        let session = state.withLock { state in
            state.lastUse[token] = nil
            state.loading[token] = nil
            return state.sessions.removeValue(forKey: token)
        }
        session?.subscribers.endAll()
    }

    /// Over the limit, lets go of the least recently used tenth of the sessions nobody watches, so that
    /// the sorting is paid once per many loads. A request still holding one finishes with it; the session
    /// stays correct on its own, as a second server's would.
    ///
    /// It runs under the lock that every push takes first (for a push, on its event loop): the sort compares
    /// numbers, not two dictionary lookups of 64-character tokens per comparison, and nothing copies the table
    /// of uses.
    private static func letIdleSessionsGo(_ state: inout State, maximum: Int) {
        guard state.sessions.count > maximum else { return }
        var idle: [(lastUse: UInt64, token: String)] = []
        idle.reserveCapacity(state.sessions.count)
        for (token, session) in state.sessions where !session.isWatched {
            idle.append((state.lastUse[token, default: 0], token))
        }
        idle.sort { $0.lastUse < $1.lastUse }
        for (_, token) in idle.prefix(state.sessions.count - maximum + maximum / 10) {
            state.sessions[token] = nil
            state.lastUse[token] = nil
        }
    }

    /// A device's session if it is loaded now; `nil` otherwise (nothing is read from the store).
    func loadedSession(for token: String) -> DeviceSession? {
        state.withLock { $0.sessions[token] }
    }

    /// A device's session if it is loaded or being loaded now (then once its load ends); `nil` otherwise, without
    /// reading the store.
    func loadedOrLoadingSession(for token: String) async -> DeviceSession? {
        let (loaded, load) = state.withLock { ($0.sessions[token], $0.loading[token]) }
        if let loaded { return loaded }
        return try? await load?.value
    }

    /// The sessions loaded now.
    var loadedSessions: [DeviceSession] { state.withLock { Array($0.sessions.values) } }

    /// Sends every open stream of every loaded device a heartbeat comment.
    @Sendable func heartbeat() {
        for session in loadedSessions { session.subscribers.heartbeat() }
    }

    /// Follows the changes other servers commit to a shared store, so that this server's centers and live
    /// streams show them too. Returns when the notices end (at shutdown).
    func follow(_ notices: AsyncStream<ChangeNotice>, logger: Logger) async {
        for await notice in notices {
            switch notice {
            case .changed(let token, let number):
                guard let session = loadedSession(for: token) else { continue }
                await catchUp(session, through: number, logger: logger)
            case .deviceDeleted(let token):
                forget(token)
            case .resync:
                for session in loadedSessions { await catchUp(session, through: .max, logger: logger) }
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
