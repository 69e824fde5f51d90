import Foundation
public import HuddleCore
import Logging
import PostgresNIO
import ServiceLifecycle

extension PostgresNotificationStore {
    /// Notices of the changes other servers (other store instances) commit: every consumer that asks
    /// gets a stream of its own, which ends when the store shuts down.
    ///
    /// `.resync` comes each time the listening connection is established while the stream is open,
    /// the first time included: notices committed before it listened, or while it was reconnecting,
    /// never arrive, so the consumer checks the devices it follows.
    public func noticesFromOtherServers() -> AsyncStream<ChangeNotice>? {
        subscribers.subscribe()
    }

    /// Takes the device's next change number, locking the device's row until the transaction ends.
    /// - Returns: `nil` for an unknown device.
    func takeNextNumber(device token: String, _ connection: PostgresConnection) async throws -> UInt64? {
        try await connection.firstRow(
            "UPDATE devices SET last_change = last_change + 1 WHERE token = \(token) RETURNING last_change", logger: logger
        ).map { UInt64(try $0.decode(Int64.self)) }
    }

    /// Records change `number` in the journal, forgets old ones as the retention says, and announces the
    /// change to the other servers (delivered when the transaction commits).
    func record(
        _ kind: ChangeRecord.Kind, topic: String, identifiers: [String] = [], number: UInt64, device token: String,
        event: DeviceEvent? = nil, summary: ScheduledSummary? = nil, _ connection: PostgresConnection
    ) async throws {
        let record = ChangeRecord(number: number, kind: kind, topic: topic, identifiers: identifiers, event: event, summary: summary)
        try await connection.run(
            """
            INSERT INTO changes (device_id, number, kind, topic, identifiers, detail)
            VALUES ((SELECT id FROM devices WHERE token = \(token)), \(Int64(number)), \(kind.rawValue), \(topic), \(record.identifiersText), \(record.detailText))
            """, logger: logger)
        if let oldestKept = configuration.retention.oldestKept(afterRecording: number) {
            try await forgetChanges(before: oldestKept, device: token, connection)
        }
        try await notify(.changed(number), device: token, connection)
    }

    /// Forgets a device's changes numbered below `oldestKept`, in the caller's transaction or (for a
    /// delivery, which has committed already) in one of its own. The mark only moves forward, so two
    /// writers forgetting at once cannot move it back.
    func forgetChanges(before oldestKept: UInt64, device token: String, _ connection: PostgresConnection? = nil) async throws {
        let forget: @Sendable (PostgresConnection) async throws -> Void = { [logger] connection in
            try await connection.run(
                "DELETE FROM changes WHERE device_id = (SELECT id FROM devices WHERE token = \(token)) AND number < \(Int64(oldestKept))",
                logger: logger)
            try await connection.run(
                """
                UPDATE devices SET oldest_kept_change = GREATEST(oldest_kept_change, \(Int64(oldestKept))) WHERE token = \(token)
                """, logger: logger)
        }
        if let connection {
            try await forget(connection)
        } else {
            try await client.write(logger: logger) { connection in
                try await forget(connection)
                return .commit(())
            }
        }
    }

    func notify(_ event: ChangeNoticePayload.Event, device token: String, _ connection: PostgresConnection) async throws {
        let payload = ChangeNoticePayload(server: instanceID, device: token, event: event).text
        try await connection.run("SELECT pg_notify(\(ChangeNoticePayload.channel), \(payload))", logger: logger)
    }

    /// Listens on `huddle_changes` until cancelled, passing other servers' notices to the subscribers;
    /// after a lost connection, tries again after ``Configuration/reconnectDelay``.
    func listen() async {
        // At shutdown the pool closes as this loop stops: neither is a lost connection to report.
        var isStopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }
        while !isStopping {
            do {
                // A connection of its own, not one leased from the pool: it is held for as long as the server
                // runs, and a pool that stops waits for the connections it leased.
                let connection = try await PostgresConnection.connect(
                    configuration: try database.connectionConfiguration(), id: Self.listenerConnectionID, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: ChangeNoticePayload.channel) { notifications in
                    logger.debug("listening for other servers' changes on \(ChangeNoticePayload.channel)")
                    subscribers.publish(.resync)
                    // The notifications are read, and the connection checked, by tasks of their own: on a
                    // connection the server dropped, postgres-nio can leave a query or the notifications
                    // waiting for good, and a wait tied to them would stop this listener for good too.
                    let (ended, endListening) = AsyncStream<Void>.makeStream()
                    let reader = Task {
                        do {
                            for try await notification in notifications { self.received(notification.payload) }
                        } catch {}
                        endListening.finish()
                    }
                    let heartbeat = Task { [configuration] in
                        while !Task.isCancelled {
                            try? await Task.sleep(for: configuration.heartbeatInterval)
                            guard await Self.answers(connection, within: configuration.heartbeatTimeout, logger: logger) else { break }
                        }
                        endListening.finish()
                    }
                    defer {
                        reader.cancel()
                        heartbeat.cancel()
                    }
                    // Until the connection is lost (or this task is cancelled, which ends the stream too).
                    for await _ in ended {}
                    if !isStopping { throw StoreError(.unavailable, "the listening connection stopped answering") }
                }
            } catch {
                if isStopping { break }
                logger.warning("lost the connection listening for other servers' changes: \(StoreError.fromPostgres(error))")
            }
            try? await Task.sleep(for: configuration.reconnectDelay)
        }
    }

    /// Whether a connection answers a query within `limit`.
    static func answers(_ connection: PostgresConnection, within limit: Duration, logger: Logger) async -> Bool {
        await result(of: { (try? await connection.query("SELECT 1", logger: logger)) != nil }, within: limit, otherwise: false)
    }

    /// The listener's connection id, in logs (the pool numbers its own from 0).
    static let listenerConnectionID = 1_000_000

    func received(_ payload: String) {
        guard let payload = ChangeNoticePayload(text: payload) else {
            logger.warning("ignoring a notice on \(ChangeNoticePayload.channel) that this build does not understand: \(payload)")
            return
        }
        guard payload.server != instanceID else { return }
        subscribers.publish(payload.notice)
    }
}
