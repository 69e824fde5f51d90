import ArgumentParser
import Foundation
import HuddleAPNs
import HuddleCore
import Logging

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Register the signing keys providers authenticate with (APNs token authentication).",
        subcommands: [Add.self, List.self, Remove.self]
    )

    static var logger: Logger {
        var logger = Logger(label: "huddle")
        logger.logLevel = .warning
        return logger
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a team's key: its id, team, public key and the topics it may push to.")

        @OptionGroup var database: DatabaseOption
        @Option(help: "The 10-character key identifier (the JWT kid).") var keyId: String
        @Option(help: "The 10-character team identifier (the JWT iss).") var teamId: String
        @Option(help: "The P-256 public key as PEM (openssl ec -in AuthKey_KEYID.p8 -pubout), or the .p8 itself.")
        var publicKey: String
        @Option(name: .customLong("topic"), help: "A bundle identifier the key may push to (repeat; none means any).")
        var topics: [String] = []

        func run() async throws {
            let pem = try String(contentsOfFile: publicKey, encoding: .utf8)
            let key = SigningKeyRecord(
                keyID: keyId, teamID: teamId, publicKeyPEM: try SigningKeys.publicKeyPEM(from: pem), topics: topics,
                createdAt: Date())
            try SigningKeys.validate(key)
            try await database.withStore(logger: KeysCommand.logger) { store in try await store.saveSigningKey(key) }
            print("registered key \(keyId) of team \(teamId) for \(topics.isEmpty ? "every topic" : topics.joined(separator: ", "))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered keys.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            for key in try await database.withStore(logger: KeysCommand.logger, { store in try await store.signingKeys() }) {
                print("\(key.keyID)  team \(key.teamID)  topics: \(key.topics.isEmpty ? "any" : key.topics.joined(separator: ", "))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a key.")
        @OptionGroup var database: DatabaseOption
        @Argument var keyId: String

        func run() async throws {
            let removed = try await database.withStore(logger: KeysCommand.logger) { store in try await store.deleteSigningKey(id: keyId) }
            guard removed else { throw ValidationError("no key \(keyId)") }
            print("removed key \(keyId)")
        }
    }
}
