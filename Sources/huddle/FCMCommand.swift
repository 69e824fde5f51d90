import ArgumentParser
import Foundation
import HuddleCore
import HuddleFCM
import NIOHTTP1

struct FCMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm",
        abstract: "Firebase Cloud Messaging: service accounts that Google's Admin SDKs send with (docs/fcm.md).",
        subcommands: [ServiceAccount.self]
    )

    struct ServiceAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "service-account",
            abstract: "Make a service account's key, register it with Huddle, and write its JSON key file.",
            discussion: """
                The file is what Google's Cloud console gives (type service_account, project_id, private_key_id, \
                private_key, client_email…), with token_uri pointing at Huddle's token endpoint: an Admin SDK \
                initialized with it gets its access tokens from Huddle. Only the address it sends messages to changes \
                (README: "Firebase Cloud Messaging").
                """
        )

        @OptionGroup var target: KeysCommand.Target
        @Option(help: "The Firebase project id the account sends for.") var project: String
        @Option(help: "The account's email (default: huddle@<project>.iam.gserviceaccount.com).") var clientEmail: String?
        @Option(help: "Where SDKs get access tokens (default: <--server>/token, else http://127.0.0.1:8443/token).") var tokenUri: String?
        @Option(name: .shortAndLong, help: "Write the key file here (default: standard output).") var output: String?

        func run() async throws {
            try await reportingFailures(as: "fcm service-account") {
                guard FirebaseInstallation.isValidProjectID(project) else {
                    throw CommandFailure(.badInput, "--project: a Firebase project id is 1 to 100 letters, digits, '-', '_' or '.'")
                }
                let email = clientEmail ?? "huddle@\(project).iam.gserviceaccount.com"
                let keyID = (0..<20).map { _ in UInt8.random(in: 0...255) }.lowercaseHex
                let keys = try ServiceAccountKeys.make()
                let account = ServiceAccountRecord(keyID: keyID, project: project, clientEmail: email, publicKeyPEM: keys.publicKeyPEM, createdAt: Date())
                if let api = try target.adminAPI() {
                    let body = JSONValue.object(JSONObject([
                        ("project", .string(project)), ("clientEmail", .string(email)), ("publicKey", .string(keys.publicKeyPEM)),
                    ]))
                    _ = try await api.send(.PUT, "/v1/admin/service-accounts/\(keyID)", json: body)
                } else {
                    try await target.withExistingStore { store in try await store.saveServiceAccount(account) }
                }
                let server = target.server.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "http://127.0.0.1:8443"
                let file = JSONValue.object(JSONObject([
                    ("type", "service_account"), ("project_id", .string(project)), ("private_key_id", .string(keyID)),
                    ("private_key", .string(keys.privateKeyPEM)), ("client_email", .string(email)), ("client_id", .string(keyID)),
                    ("auth_uri", "https://accounts.google.com/o/oauth2/auth"), ("token_uri", .string(tokenUri ?? server + "/token")),
                    ("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs"),
                    ("client_x509_cert_url", .string("https://www.googleapis.com/robot/v1/metadata/x509/\(email)")),
                    ("universe_domain", "googleapis.com"),
                ]))
                var text = file.jsonText(pretty: true)
                text.append("\n")
                if let output {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
                    FileHandle.standardError.write(Data("registered service account key \(keyID) of project \(project); wrote \(output)\n".utf8))
                } else {
                    print(text, terminator: "")
                }
            }
        }
    }
}
