import ArgumentParser
import Foundation
import HuddleCore
import NIOHTTP1

/// `huddle faults`: makes a running server's provider endpoint fail chosen pushes, through its admin API
/// (`/v1/admin/faults`), so that a provider's retry code can be tried against every failure APNs has.
struct FaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "Make a Huddle server fail chosen pushes as APNs fails: a reason, a delay, a reset stream, a GOAWAY.",
        discussion: """
            Faults are off until added, held by the server they were added to (not stored), at most 100. The \
            first fault that matches a push (by --device, --topic, --push-type) catches it.
            """,
        subcommands: [Add.self, List.self, Clear.self]
    )

    /// The server whose faults are changed.
    struct Server: ParsableArguments {
        @Option(help: "The Huddle server.") var server = "http://127.0.0.1:8443"
        @Option(help: "The server's admin token (default: $HUDDLE_ADMIN_TOKEN).") var adminToken: String?
        @Option(help: "A PEM CA certificate to trust (a test server's self-signed certificate).") var caCertificate: String?

        func adminAPI() throws -> AdminAPIClient {
            guard let token = adminToken ?? ProcessInfo.processInfo.environment["HUDDLE_ADMIN_TOKEN"] else {
                throw ValidationError("faults need the server's admin token: --admin-token or $HUDDLE_ADMIN_TOKEN")
            }
            return AdminAPIClient(server: server, token: token, caCertificate: caCertificate)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a fault; prints it as the server keeps it (JSON).",
            discussion: """
                Examples: `huddle faults add --reason Unregistered --device <token> --count 1`; \
                `huddle faults add --reason TooManyRequests --count 3`; `huddle faults add --connection goaway`; \
                `huddle faults add --pushes-per-second 10 --device <token>`.
                """)

        @OptionGroup var target: Server
        @Option(help: "Catch pushes to this device token only.") var device: String?
        @Option(help: "Catch pushes to this app (its bundle id) only.") var topic: String?
        @Option(help: "Catch pushes of this apns-push-type only.") var pushType: String?
        @Option(help: "Answer this APNs reason, with its status (Unregistered, TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown, …).")
        var reason: String?
        @Option(help: "For FCM messages: answer this FCM error code (UNAVAILABLE, QUOTA_EXCEEDED, INTERNAL, UNREGISTERED, …).")
        var fcmError: String?
        @Option(help: "For web pushes: answer this status in the push service's words (410, 429, 500 or 503).") var webPushStatus: Int?
        @Option(help: ArgumentHelp(
            "For Expo messages: this error (DeviceNotRegistered, MessageTooBig, MessageRateExceeded, MismatchSenderId, InvalidCredentials, …), "
                + "in the receipt after an ok ticket unless --expo-in ticket."))
        var expoError: String?
        @Option(help: "With --expo-error: ticket or receipt (default: receipt).") var expoIn: String?
        @Option(help: "With --reason Unregistered or ExpiredToken: the timestamp answered, in milliseconds since 1970 (default: now).")
        var timestamp: Int?
        @Option(help: "Wait this many milliseconds before answering (at most 60000).") var delay: Int?
        @Option(help: "reset-stream, close (no answer) or goaway (503 Shutdown, then a GOAWAY).") var connection: String?
        @Option(help: "Answer TooManyRequests to pushes to one device beyond this many a second.") var pushesPerSecond: Int?
        @Option(help: "Catch this many pushes, then go (default: until removed).") var count: Int?

        func run() async throws {
            var fault = JSONObject()
            let texts: [(String, String?)] = [
                ("device", device), ("topic", topic), ("pushType", pushType), ("reason", reason), ("fcmError", fcmError), ("connection", connection),
                ("expoError", expoError), ("expoIn", expoIn),
            ]
            for case (let name, let value?) in texts { fault[name] = .string(value) }
            let numbers: [(String, Int?)] = [
                ("timestamp", timestamp), ("delayMilliseconds", delay), ("pushesPerSecond", pushesPerSecond), ("count", count),
                ("webPushStatus", webPushStatus),
            ]
            for case (let name, let value?) in numbers { fault[name] = .integer(Int64(value)) }
            let api = try target.adminAPI()
            try await reportingFailures(as: "faults add") { print(try await api.send(.POST, "/v1/admin/faults", json: .object(fault)), terminator: "") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the server's faults (JSON), in the order pushes meet them.")
        @OptionGroup var target: Server

        func run() async throws {
            let api = try target.adminAPI()
            try await reportingFailures(as: "faults list") { print(try await api.send(.GET, "/v1/admin/faults"), terminator: "") }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove one fault (--id) or every fault.")
        @OptionGroup var target: Server
        @Option(help: "The fault to remove (default: all).") var id: Int?

        func run() async throws {
            let api = try target.adminAPI()
            let path = "/v1/admin/faults" + (id.map { "/\($0)" } ?? "")
            try await reportingFailures(as: "faults clear") {
                let answer = try await api.send(.DELETE, path)
                if !answer.isEmpty { print(answer, terminator: "") }
            }
        }
    }
}
