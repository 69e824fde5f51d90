import Crypto
import Foundation
import HuddleAPNs
import HuddleCore
@testable import HuddleServer
import NIOCore
import NIOEmbedded
import Testing

/// What the server knows of one client connection lives with the connection: in its pipeline, where a request the
/// router answers finds it, and nowhere after it.
@Suite struct ClientConnectionTests {
    static let keyPEM = P256.Signing.PrivateKey().pemRepresentation
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func key(team: String) throws -> SigningKeyRecord {
        let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        return SigningKeyRecord(
            keyID: "KEY\(team)", teamID: team, publicKeyPEM: key.publicKey.pemRepresentation, topics: ["com.example.app"], createdAt: start)
    }

    static func token(team: String) throws -> ProviderToken {
        try ProviderToken(parsing: ProviderToken.sign(keyID: "KEY\(team)", teamID: team, issuedAt: start, privateKeyPEM: keyPEM))
    }

    @Test func aRequestTheRouterAnswersFindsItsConnectionsState() async throws {
        let channel = EmbeddedChannel()
        let connection = ClientConnection()
        try channel.pipeline.syncOperations.addHandler(ClientConnection.Holder(connection))
        #expect(await ClientConnection.of(channel) === connection)
        // A channel the transport did not make (a test's router) gets a state of its own.
        #expect(await ClientConnection.of(EmbeddedChannel()) !== connection)
    }

    @Test func aConnectionKeepsTheTokenItAdmitted() throws {
        let connection = ClientConnection()
        #expect(connection.token == nil)
        let token = try Self.token(team: "TEAM000001")
        try connection.admit(token, key: try Self.key(team: "TEAM000001"), bundleIdentifier: "com.example.app", now: Self.start)
        #expect(connection.token?.text == token.text && connection.tokenState.key?.teamID == "TEAM000001")
    }

    /// Streams of one connection presenting two teams' tokens at once: the connection is bound to one team, and every
    /// token of the other is refused, however the admissions interleave.
    @Test func racingStreamsOfOneConnectionBindItToOneTeam() async throws {
        let connection = ClientConnection()
        let teams = ["TEAM000001", "TEAM000002"]
        let tokens = try teams.map { try Self.token(team: $0) }
        let keys = try teams.map { try Self.key(team: $0) }
        let admitted = await withTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                let team = index % 2
                group.addTask {
                    (try? connection.admit(tokens[team], key: keys[team], bundleIdentifier: "com.example.app", now: Self.start)) != nil
                        ? teams[team] : nil
                }
            }
            return await group.reduce(into: [String]()) { if let team = $1 { $0.append(team) } }
        }
        #expect(Set(admitted).count == 1 && admitted.count == 100)
        #expect(connection.tokenState.key?.teamID == admitted.first)
    }
}
