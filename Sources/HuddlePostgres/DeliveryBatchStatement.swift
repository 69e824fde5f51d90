import Foundation
import HuddleCore
import PostgresNIO

/// The statement that stores a batch of deliveries to any devices, as a named prepared statement: each
/// connection parses it once, and PostgreSQL may keep its plan, where an unnamed statement was parsed and
/// planned again for every batch (about a millisecond of the database's time, measured with `EXPLAIN
/// ANALYZE`, as much as the rest of a batch of eight pushes).
///
/// Each device's numbers are taken in one step (its row locked in token order, so that two servers'
/// batches cannot deadlock), then every notification and change is written, and each device is announced
/// once, with its last change. A delivery whose device or app is gone is left out: it has no row. So is one to a
/// device with settings of its own (a summary, a Focus), whose arrivals its store decides one by one.
struct DeliveryBatchStatement: PostgresPreparedStatement {
    static let name = "huddle_deliver_batch"

    static let sql = """
        WITH pushes AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[])
                WITH ORDINALITY AS p(device_token, topic, identifier, delivered_at, content, journal_identifiers, position)
        ), accepted AS (
            SELECT pushes.*, apps.id AS app_id FROM pushes
            JOIN apps ON apps.device_token = pushes.device_token AND apps.topic = pushes.topic
        ), counts AS (
            SELECT device_token, count(*) AS count FROM accepted GROUP BY device_token
        ), locked AS (
            -- Locked, a row is judged as it is now: a device whose settings a transaction that committed meanwhile set
            -- is left out with its pushes, which a transaction of their own decides under those settings.
            SELECT token FROM devices
            WHERE token IN (SELECT device_token FROM counts) AND settings IS NULL ORDER BY token FOR UPDATE
        ), taken AS (
            UPDATE devices SET last_change = devices.last_change + counts.count
            FROM counts JOIN locked ON locked.token = counts.device_token
            WHERE devices.token = counts.device_token
            RETURNING devices.token, devices.id, devices.last_change - counts.count AS before, devices.last_change AS last
        ), numbered AS (
            SELECT accepted.*, taken.id AS device_id,
                taken.before + row_number() OVER (PARTITION BY accepted.device_token ORDER BY accepted.position) AS number
            FROM accepted JOIN taken ON taken.token = accepted.device_token
        ), stored AS (
            -- A notification pushed twice in one batch (one collapse identifier) is stored once, as its last push.
            INSERT INTO notifications (app_id, identifier, sequence, delivered_at, content)
            SELECT DISTINCT ON (app_id, identifier) app_id, identifier, number, delivered_at, content
            FROM numbered ORDER BY app_id, identifier, number DESC
            ON CONFLICT (app_id, identifier) DO UPDATE SET
                sequence = excluded.sequence, delivered_at = excluded.delivered_at, content = excluded.content, held = NULL,
                silenced_by = NULL
            -- A row inserted now has no xmax; one replaced has this transaction's.
            RETURNING app_id, xmax = 0 AS inserted
        ), grown AS (
            -- Each app's count, kept beside it, so that a limit is checked without counting notifications.
            UPDATE apps SET notification_count = apps.notification_count + added.count
            FROM (SELECT app_id, count(*) AS count FROM stored WHERE inserted GROUP BY app_id) AS added
            WHERE apps.id = added.app_id
            RETURNING apps.id, apps.notification_count
        ), recorded AS (
            INSERT INTO changes (device_id, number, kind, topic, identifiers)
            SELECT device_id, number, $7::text, topic, journal_identifiers FROM numbered
        ), announced AS (
            SELECT pg_notify($8::text, json_build_object('server', $9::text, 'device', token, 'change', last)::text)
            FROM taken
        )
        -- A CTE that changes nothing runs only when read: the count makes every notice go out.
        SELECT position, number, (SELECT count(*) FROM announced), grown.notification_count
        FROM numbered LEFT JOIN grown ON grown.id = numbered.app_id
        """

    /// One delivery of the batch.
    struct Delivery {
        var request: NotificationRequest
        var app: String
        var date: Date
        var device: String
        /// The app's limit (``NotificationWrite/deliver(_:app:at:device:notificationsPerApp:)``).
        var notificationsPerApp: Int = .max
    }

    /// Where each stored delivery is in the batch (from 0), the change number it took, and how many
    /// notifications its app holds now (`nil` when the batch added none to it, only replaced some).
    typealias Row = (index: Int, number: UInt64, appCount: Int?)

    var deliveries: [Delivery]
    /// Names the storing server in its notices, so that its own listener can drop them.
    var serverID: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        bindings.append(deliveries.map(\.device))
        bindings.append(deliveries.map(\.app))
        bindings.append(deliveries.map(\.request.identifier))
        bindings.append(deliveries.map(\.date.milliseconds))
        bindings.append(deliveries.map { RowCodec.contentText($0.request.content) })
        bindings.append(deliveries.map {
            ChangeRecord(number: 0, kind: .delivered, topic: $0.app, identifiers: [$0.request.identifier]).identifiersText
        })
        bindings.append(ChangeRecord.Kind.delivered.rawValue)
        bindings.append(ChangeNoticePayload.channel)
        bindings.append(serverID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (position, number, _, appCount) = try row.decode((Int64, Int64, Int64, Int64?).self)
        return (index: Int(position) - 1, number: UInt64(number), appCount: appCount.map(Int.init))
    }
}
