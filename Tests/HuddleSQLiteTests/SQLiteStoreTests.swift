import Foundation
import GRDB
import HuddleCore
import HuddleSQLite
import HuddleTestSupport
import Testing

@Suite struct SQLiteStoreTests {
    /// A new database file in a new temporary folder.
    static func temporaryPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("huddle.sqlite").path
    }

    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: String) async throws {
        let store = try SQLiteNotificationStore(path: try Self.temporaryPath())
        try await StoreConformance.check(check, store: store)
    }

    @Test func dataSurvivesReopening() async throws {
        let path = try Self.temporaryPath()
        do {
            let store = try SQLiteNotificationStore(path: path)
            try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
        }
        let reopened = try SQLiteNotificationStore(path: path)
        #expect(try await reopened.notifications(device: String(repeating: "ab", count: 32)).count == 3)
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let path = try Self.temporaryPath()
        _ = try SQLiteNotificationStore(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('999 from the future')")
        }
        #expect {
            _ = try SQLiteNotificationStore(path: path)
        } throws: { error in
            "\(error)".contains("written by a newer Huddle (unknown migrations: 999 from the future)")
        }
    }

    @Test func corruptRowsAreReportedNotGuessed() async throws {
        let path = try Self.temporaryPath()
        let store = try SQLiteNotificationStore(path: path)
        try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "UPDATE notifications SET content = '{broken' WHERE identifier = 'b'") }
        await #expect {
            _ = try await store.notifications(device: String(repeating: "ab", count: 32))
        } throws: { error in
            "\(error)".contains("stored notification b is not valid JSON")
        }
    }
}
