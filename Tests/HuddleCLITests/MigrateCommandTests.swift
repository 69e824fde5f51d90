import Foundation
import HuddleTestSupport
import Testing

/// `huddle migrate` on SQLite files, run as a real process (PostgreSQL's are in HuddlePostgresTests).
@Suite struct MigrateCommandTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func listsThenAppliesThenHasNothingToDo() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("huddle.sqlite").path
        let huddle = try CommandRunner.huddle()

        let dryRun = try await huddle.run(["migrate", "--database", path, "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        #expect(dryRun.standardOutput == """
            pending 001 devices, apps, notifications, signing keys
            pending 002 numbered changes, app display names
            pending 003 notification counts and order per app
            pending 004 device events in the change journal
            pending 005 Live Activities and their declarations
            pending 006 environments of devices and keys
            pending 007 broadcast channels
            pending 008 device settings
            pending 009 held and silenced notifications, summaries, app capabilities
            pending 010 Android devices, FCM registration tokens, service accounts, topic subscriptions
            pending 011 the channels Live Activities listen on
            pending 012 integer ids for devices, apps, notifications and changes
            pending 013 apps found by Firebase installation ID
            pending 014 web apps' push subscriptions
            pending 015 delivery receipts
            15 migrations pending in \(path)

            """)
        #expect(!FileManager.default.fileExists(atPath: path), "a dry run creates nothing")

        let applied = try await huddle.run(["migrate", "--database", path])
        #expect(applied.status == 0, "\(applied.standardError)")
        #expect(applied.standardOutput.hasPrefix("applied 001 devices, apps, notifications, signing keys\napplied 002"))
        #expect(applied.standardOutput.hasSuffix(
            "applied 015 delivery receipts\n15 migrations applied to \(path)\n"))

        // The default database comes from the environment when --database is not given.
        let again = try await huddle.run(["migrate"], environment: ["HUDDLE_DATABASE_URL": path])
        #expect(again.status == 0)
        #expect(again.standardOutput == "\(path) is up to date\n")
    }

    @Test func refusesWhatItCannotMigrate() async throws {
        let huddle = try CommandRunner.huddle()
        let memory = try await huddle.run(["migrate", "--database", "memory"])
        #expect(memory.status != 0)
        #expect(memory.standardError.contains("an in-memory store has no schema to migrate"))

        let badURL = try await huddle.run(["migrate", "--database", "postgres://huddle@db:port/huddle"])
        #expect(badURL.status != 0)
        #expect(badURL.standardError.contains("invalid PostgreSQL URL postgres://huddle@db:port/huddle: the port \"port\" is not a number"))
    }
}
