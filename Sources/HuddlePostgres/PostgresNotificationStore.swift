import Foundation
public import HuddleCore
public import Logging
import PostgresNIO
public import ServiceLifecycle

/// A ``NotificationStore`` in a PostgreSQL database, which several Huddle servers may share.
///
/// Every write to a device's center takes the device's next change number by updating the device's row
/// first, in the write's own transaction: the row lock orders writers to one device across servers, so
/// numbers are given without gaps and in commit order, and a write that turns out to change nothing rolls
/// back to give its number back. The same transaction records the change in `changes` and announces it
/// with `pg_notify` on `huddle_changes`, which PostgreSQL delivers to the other servers at commit; a
/// write returns only after COMMIT.
///
/// The store is a `Service`: ``run()`` runs its connection pool and the listener behind
/// ``noticesFromOtherServers()`` until graceful shutdown, and no query is served while it is not running.
/// The schema must be migrated first (``PostgresMigrations/migrate(_:logger:)``). Values reach SQL only
/// as bound parameters: through `PostgresQuery` interpolation, or a prepared statement's bindings
/// (``DeliveryBatchStatement``).
public final class PostgresNotificationStore: NotificationStore, Service {
    /// Options with defaults suited to a server.
    public struct Configuration: Sendable {
        /// How many recent changes of each device are kept for servers and streams catching up.
        public var retention = ChangeRetention()
        /// The most connections the store opens; one of them stays with the listener.
        public var maximumConnections = 20
        /// How long the listener waits before it connects again after losing its connection.
        public var reconnectDelay: Duration = .seconds(1)
        /// How often the listener checks that its connection is alive: an idle connection whose server
        /// vanished without a word would otherwise wait for notices forever.
        public var heartbeatInterval: Duration = .seconds(15)
        /// How long the listening connection may take to answer its heartbeat before it counts as lost.
        public var heartbeatTimeout: Duration = .seconds(5)
        /// How long stopping waits for the connections to close, within a server's shutdown deadline.
        public var stopTimeout: Duration = .seconds(3)

        public init() {}
    }

    let client: PostgresClient

    /// The database, for the listener's own connection (outside the pool).
    let database: PostgresURL

    let configuration: Configuration

    let logger: Logger

    /// Names this store instance in the notices it sends, so that its listener can drop them.
    let instanceID = UUID().uuidString.lowercased()

    let subscribers = ChangeNoticeSubscribers()

    /// Prepares a store of the database at `database`; nothing connects before ``run()``.
    public init(database: PostgresURL, configuration: Configuration = Configuration(), logger: Logger) {
        var clientConfiguration = database.clientConfiguration
        clientConfiguration.options.maximumConnections = max(2, configuration.maximumConnections)
        // The pool logs every failed connection attempt; the store reports what matters itself, so the
        // pool's own lines show only when debugging.
        var poolLogger = logger
        if poolLogger.logLevel > .debug { poolLogger.logLevel = .error }
        client = PostgresClient(configuration: clientConfiguration, backgroundLogger: poolLogger)
        self.database = database
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs the connection pool and the listener until graceful shutdown (or cancellation), then ends
    /// every stream of notices.
    public func run() async throws {
        // The pool and the listener run as tasks of their own so that stopping them is bounded: after a
        // cancellation, postgres-nio's pool sometimes waits on a connection that is still closing, and a
        // server must stop within its shutdown deadline. A stream is the stop signal rather than
        // ServiceLifecycle's `gracefulShutdown()`, which could miss a cancellation that came as it started
        // waiting.
        let pool = Task { await client.run() }
        let listener = Task { await listen() }
        let (stopRequests, requestStop) = AsyncStream<Void>.makeStream()
        await withGracefulShutdownHandler {
            // Ends when a stop is requested, or at once when this task is cancelled.
            for await _ in stopRequests {}
        } onGracefulShutdown: {
            requestStop.finish()
        }
        subscribers.finish()
        listener.cancel()
        pool.cancel()
        let stopped = await Self.result(
            of: {
                await listener.value
                await pool.value
                return true
            }, within: configuration.stopTimeout, otherwise: false)
        // Not a failure: postgres-nio sometimes waits on a connection that is still closing; the process goes on.
        if !stopped { logger.notice("the PostgreSQL connections were still closing after \(configuration.stopTimeout); not waiting for them") }
    }

    /// What `operation` returns, or `fallback` when it takes longer than `limit`. The operation runs in a
    /// task of its own, cancelled and left behind if it is late: what is waited for here (postgres-nio
    /// closing or querying a dropped connection) does not always end when cancelled.
    static func result<Value: Sendable>(
        of operation: @escaping @Sendable () async -> Value, within limit: Duration, otherwise fallback: Value
    ) async -> Value {
        let (results, deliver) = AsyncStream<Value>.makeStream()
        let work = Task { deliver.yield(await operation()) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            deliver.yield(fallback)
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        for await value in results { return value }
        return fallback
    }

    typealias Delivery = DeliveryBatchStatement.Delivery

    /// Stores deliveries to any devices in one statement (``DeliveryBatchStatement``), then trims the apps it
    /// took past their limits.
    func deliver(_ deliveries: [Delivery]) async throws -> [Result<[DeviceChange], StoreError>] {
        var (results, pastLimit) = try await store(deliveries, from: 0)
        await trim(pastLimit, into: &results)
        return results
    }
}
