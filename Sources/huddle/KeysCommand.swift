import ArgumentParser
import Foundation
import HuddleAPNs
import HuddleCore
import Logging
import NIOHTTP1

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Register the signing keys providers authenticate with (APNs token authentication).",
        discussion: """
            With --server, through a running server's admin API (its --admin-token); else straight into a \
            store (--database), which must exist: a key written into a new file would reach no server.
            """,
        subcommands: [Add.self, List.self, Remove.self, VAPID.self]
    )

    static var logger: Logger {
        var logger = Logger(label: "huddle")
        logger.logLevel = .warning
        return logger
    }

    /// Where the keys are: a running server, or a store.
    struct Target: ParsableArguments {
        @Option(help: "A running Huddle server, e.g. http://127.0.0.1:8443: change its keys through its admin API.")
        var server: String?
        @Option(help: "With --server: its admin token (default: $HUDDLE_ADMIN_TOKEN).") var adminToken: String?
        @Option(help: "With --server: a PEM CA certificate to trust (a test server's self-signed certificate).")
        var caCertificate: String?
        @OptionGroup var database: DatabaseOption

        /// The server's admin API, when `--server` is given.
        func adminAPI() throws -> AdminAPIClient? {
            guard let server else { return nil }
            guard let token = adminToken ?? ProcessInfo.processInfo.environment["HUDDLE_ADMIN_TOKEN"] else {
                throw ValidationError("--server needs the server's admin token: --admin-token or $HUDDLE_ADMIN_TOKEN")
            }
            return AdminAPIClient(server: server, token: token, caCertificate: caCertificate)
        }

        /// Runs `body` with the store, which must exist already.
        func withExistingStore<Value: Sendable>(_ body: (any NotificationStore) async throws -> Value) async throws -> Value {
            if case .sqlite(let path) = try database.location(), !FileManager.default.fileExists(atPath: path) {
                throw CommandFailure(
                    .missingInput,
                    "no Huddle database at \(path): give --server <URL of a running server> with its --admin-token, or "
                        + "--database <an existing database> (huddle migrate makes one)")
            }
            return try await database.withStore(logger: KeysCommand.logger, body)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a team's key: its id, team, public key and the topics it may push to.")

        @OptionGroup var target: Target
        @Option(help: "The 10-character key identifier (the JWT kid).") var keyId: String
        @Option(help: "The 10-character team identifier (the JWT iss).") var teamId: String
        @Option(help: "The P-256 public key as PEM (openssl ec -in AuthKey_KEYID.p8 -pubout), or the .p8 itself.")
        var publicKey: String
        @Option(name: .customLong("topic"), help: "A bundle identifier the key may push to (repeat; none means any).")
        var topics: [String] = []
        @Option(name: .customLong("environment"), help: "development or production: the only environment the key may be used in (default: both).")
        var environment: APNsEnvironment?

        /// The environments the key may be used in.
        private var environments: Set<APNsEnvironment> {
            environment.map { [$0] } ?? Set(APNsEnvironment.allCases)
        }

        func run() async throws {
            try await reportingFailures(as: "keys add") {
                let pem = try CommandFailure.text(of: publicKey, what: "the public key")
                let key: SigningKeyRecord
                do {
                    key = SigningKeyRecord(
                        keyID: keyId, teamID: teamId, publicKeyPEM: try SigningKeys.publicKeyPEM(from: pem), topics: topics,
                        createdAt: Date(), environments: environments)
                    try SigningKeys.validate(key)
                } catch let error as SigningKeyError {
                    throw CommandFailure(.badInput, "the public key \(publicKey): \(error)")
                }
                if let api = try target.adminAPI() {
                    let body = JSONValue.object(JSONObject([
                        ("teamID", .string(teamId)), ("publicKey", .string(key.publicKeyPEM)), ("topics", .array(topics.map(JSONValue.string))),
                        ("environments", .array(key.environments.sorted().map { .string($0.rawValue) })),
                    ]))
                    _ = try await api.send(.PUT, "/v1/admin/keys/\(keyId)", json: body)
                } else {
                    try await target.withExistingStore { store in try await store.saveSigningKey(key) }
                }
                print(
                    "registered key \(keyId) of team \(teamId) for \(topics.isEmpty ? "every topic" : topics.joined(separator: ", "))"
                        + (environment.map { ", in \($0.rawValue) only" } ?? ""))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered keys.")
        @OptionGroup var target: Target

        func run() async throws {
            try await reportingFailures(as: "keys list") {
                let keys: [(id: String, team: String, topics: [String])]
                if let api = try target.adminAPI() {
                    let list = try JSONParser.parse(try await api.send(.GET, "/v1/admin/keys"))
                    guard case .array(let items) = list else { throw CommandFailure(.badInput, "\(api.server): not a list of keys") }
                    keys = items.compactMap { item in
                        guard case .string(let id)? = item["keyID"], case .string(let team)? = item["teamID"] else { return nil }
                        guard case .array(let topics)? = item["topics"] else { return (id, team, []) }
                        return (id, team, topics.compactMap { if case .string(let topic) = $0 { topic } else { nil } })
                    }
                } else {
                    keys = try await target.withExistingStore { store in try await store.signingKeys() }.map { ($0.keyID, $0.teamID, $0.topics) }
                }
                for key in keys {
                    print("\(key.id)  team \(key.team)  topics: \(key.topics.isEmpty ? "any" : key.topics.joined(separator: ", "))")
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a key.")
        @OptionGroup var target: Target
        @Argument var keyId: String

        func run() async throws {
            try await reportingFailures(as: "keys remove") {
                if let api = try target.adminAPI() {
                    _ = try await api.send(.DELETE, "/v1/admin/keys/\(keyId)")
                } else {
                    let removed = try await target.withExistingStore { store in try await store.deleteSigningKey(id: keyId) }
                    guard removed else { throw CommandFailure(.refused, "no key \(keyId)") }
                }
                print("removed key \(keyId)")
            }
        }
    }
}
