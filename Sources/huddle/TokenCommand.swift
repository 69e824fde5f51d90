import ArgumentParser
import Foundation
import HuddleAPNs

/// `huddle token`: a provider token (the JWT of APNs token authentication) for curl or any other client.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a provider token (ES256 JWT) signed with a .p8 key, for curl or any APNs client.",
        discussion: """
            APNs accepts a token for an hour after its iat and refuses one renewed more often than every 20 \\
            minutes; Huddle checks both. Send it as 'authorization: bearer <token>'.
            """
    )

    @Option(help: "The .p8 signing key (a PKCS#8 P-256 private key, as Apple's developer site gives it).") var key: String
    @Option(help: "The key identifier (kid); default: from the key file name AuthKey_KEYID.p8.") var keyId: String?
    @Option(help: "The team identifier (iss).") var teamId: String
    @Option(help: "The token's iat, in UNIX seconds; default: now.") var issuedAt: Int?

    func run() async throws {
        try await reportingFailures {
            let date = issuedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
            print(try Self.sign(key: key, keyID: keyId, teamID: teamId, issuedAt: date))
        }
    }

    /// A provider token signed with the key in the file at `key`.
    /// - Throws: ``CommandFailure`` for a key file that is missing or is not a P-256 private key, or a key
    ///   id neither given nor in the file's name.
    static func sign(key path: String, keyID: String?, teamID: String, issuedAt: Date) throws -> String {
        let pem = try CommandFailure.text(of: path, what: "the key")
        guard let keyID = keyID ?? Self.keyID(fromFileName: path) else {
            throw ValidationError("--key-id is needed when the key file is not named AuthKey_KEYID.p8")
        }
        do {
            return try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: issuedAt, privateKeyPEM: pem)
        } catch {
            throw CommandFailure(.badInput, "the key \(path): not a P-256 private key in PEM (\(error))")
        }
    }

    static func keyID(fromFileName path: String) -> String? {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        guard name.hasPrefix("AuthKey_") else { return nil }
        return String(name.dropFirst("AuthKey_".count))
    }
}
