import Crypto
import Foundation
import HuddleAPNs
import HuddleCore
import Testing

/// Token rules that need a clock: expiry after an hour, and the 20-minute rule for new tokens.
@Suite struct ProviderAuthenticationTests {
    /// Kept as PEM: the key type itself is not Sendable.
    static let keyPEM = P256.Signing.PrivateKey().pemRepresentation
    static var key: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(pemRepresentation: keyPEM) }
    static let record = SigningKeyRecord(
        keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKeyPEM: key.publicKey.pemRepresentation, topics: ["com.example.app"],
        createdAt: Date())
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(at date: Date, keyID: String = "ABC123DEFG", teamID: String = "DEF123GHIJ") throws -> String {
        try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: date, privateKeyPEM: key.pemRepresentation)
    }

    /// What the provider endpoint does with a request's token: verify it, then admit it to the connection.
    static func authenticate(
        _ token: String?, at now: Date, state: inout ProviderConnectionState, topic: String = "com.example.app",
        lookUpKey: (String) -> SigningKeyRecord? = { $0 == record.keyID ? record : nil }
    ) async throws(APNsReason) {
        let (verified, key) = try await ProviderAuthentication.verify(
            token, connection: state, now: now, verifiedSignatures: VerifiedSignatures(), lookUpKey: lookUpKey)
        try state.admit(verified, key: key, bundleIdentifier: topic, now: now)
    }

    @Test func aTokenIsGoodForAnHour() async throws {
        var state = ProviderConnectionState()
        let token = try Self.token(at: Self.start)
        try await Self.authenticate(token, at: Self.start.addingTimeInterval(10), state: &state)
        try await Self.authenticate(token, at: Self.start.addingTimeInterval(3600), state: &state)
        await #expect(throws: APNsReason.expiredProviderToken) {
            try await Self.authenticate(token, at: Self.start.addingTimeInterval(3601), state: &state)
        }
    }

    @Test func aNewTokenNeedsTwentyMinutes() async throws {
        var state = ProviderConnectionState()
        try await Self.authenticate(try Self.token(at: Self.start), at: Self.start, state: &state)
        let refreshed = try Self.token(at: Self.start.addingTimeInterval(60))
        await #expect(throws: APNsReason.tooManyProviderTokenUpdates) {
            try await Self.authenticate(refreshed, at: Self.start.addingTimeInterval(19 * 60), state: &state)
        }
        // Refreshing after 20 minutes (as clients should, before the hour is up) is fine.
        let later = try Self.token(at: Self.start.addingTimeInterval(20 * 60))
        try await Self.authenticate(later, at: Self.start.addingTimeInterval(20 * 60), state: &state)
        #expect(state.token?.text == later)
    }

    @Test func theConnectionStaysWithItsTeam() async throws {
        var state = ProviderConnectionState()
        try await Self.authenticate(try Self.token(at: Self.start), at: Self.start, state: &state)
        await #expect(throws: APNsReason.unrelatedKeyIdInToken) {
            try await Self.authenticate(try Self.token(at: Self.start, keyID: "OTHERKEY01"), at: Self.start.addingTimeInterval(3000), state: &state)
        }
    }

    @Test func refusals() async throws {
        var state = ProviderConnectionState()
        await #expect(throws: APNsReason.missingProviderToken) { try await Self.authenticate(nil, at: Self.start, state: &state) }
        await #expect(throws: APNsReason.invalidProviderToken) { try await Self.authenticate("a.b.c", at: Self.start, state: &state) }
        await #expect(throws: APNsReason.invalidProviderToken) {
            try await Self.authenticate(try Self.token(at: Self.start), at: Self.start, state: &state, topic: "com.example.other")
        }
        await #expect(throws: APNsReason.invalidProviderToken) {
            try await Self.authenticate(try Self.token(at: Self.start.addingTimeInterval(3600)), at: Self.start, state: &state)
        }
        await #expect(throws: APNsReason.invalidProviderToken) {
            try await Self.authenticate(try Self.token(at: Self.start, teamID: "WRONGTEAM1"), at: Self.start, state: &state)
        }
        #expect(state.token == nil, "a refused token must not bind the connection")
    }

    @Test func twoTokensVerifiedAtOnceCannotBothBindTheConnection() async throws {
        // Two streams of one new connection, with tokens of two teams: both verify against the empty state
        // (each awaits its key), but admitting is atomic, and the second meets the first's binding.
        let otherTeam = SigningKeyRecord(
            keyID: "XYZ123DEFG", teamID: "OTHERTEAM1", publicKeyPEM: Self.record.publicKeyPEM, topics: [], createdAt: Date())
        let keys = [Self.record.keyID: Self.record, otherTeam.keyID: otherTeam]
        var state = ProviderConnectionState()
        let first = try await ProviderAuthentication.verify(
            try Self.token(at: Self.start), connection: state, now: Self.start, verifiedSignatures: VerifiedSignatures(),
            lookUpKey: { keys[$0] })
        let second = try await ProviderAuthentication.verify(
            try Self.token(at: Self.start, keyID: otherTeam.keyID, teamID: otherTeam.teamID), connection: state, now: Self.start,
            verifiedSignatures: VerifiedSignatures(), lookUpKey: { keys[$0] })
        try state.admit(first.token, key: first.key, bundleIdentifier: "com.example.app", now: Self.start)
        #expect(throws: APNsReason.unrelatedKeyIdInToken) {
            try state.admit(second.token, key: second.key, bundleIdentifier: "com.example.app", now: Self.start)
        }
        #expect(state.key?.teamID == Self.record.teamID)
    }

    @Test func aRemovedOrReplacedKeyStopsAProvenToken() async throws {
        var state = ProviderConnectionState()
        let token = try Self.token(at: Self.start)
        try await Self.authenticate(token, at: Self.start, state: &state)
        await #expect(throws: APNsReason.invalidProviderToken) {
            try await Self.authenticate(token, at: Self.start, state: &state, lookUpKey: { _ in nil })
        }
        // The same key id with another public key: the proven token is checked again, and fails.
        let replaced = SigningKeyRecord(
            keyID: Self.record.keyID, teamID: Self.record.teamID,
            publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation, topics: [], createdAt: Date())
        await #expect(throws: APNsReason.invalidProviderToken) {
            try await Self.authenticate(token, at: Self.start, state: &state, lookUpKey: { _ in replaced })
        }
    }

    /// One server's connections share verified signatures: a token proven on one connection is not checked
    /// again on another, but every other rule still is.
    @Test func aSignatureVerifiedOnOneConnectionIsTrustedOnAnotherWhileItsKeyStays() async throws {
        let signatures = VerifiedSignatures()
        let token = try Self.token(at: Self.start)
        func verify(_ text: String, at now: Date = Self.start, key: SigningKeyRecord? = Self.record) async throws(APNsReason) {
            _ = try await ProviderAuthentication.verify(
                text, connection: ProviderConnectionState(), now: now, verifiedSignatures: signatures, lookUpKey: { _ in key })
        }
        try await verify(token)
        #expect(signatures.count == 1)
        // A forged signature that the server had (in this test) recorded as verified passes on a new
        // connection: proof that the signature is not checked again ...
        let forged = String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        await #expect(throws: APNsReason.invalidProviderToken) { try await verify(forged) }
        signatures.insert(try ProviderToken(parsing: forged), verifiedWith: Self.record, now: Self.start)
        try await verify(forged)
        // ... while its key is registered as it was: removed or replaced, it is refused.
        await #expect(throws: APNsReason.invalidProviderToken) { try await verify(forged, key: nil) }
        let replaced = SigningKeyRecord(
            keyID: Self.record.keyID, teamID: Self.record.teamID,
            publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation, topics: [], createdAt: Date())
        await #expect(throws: APNsReason.invalidProviderToken) { try await verify(forged, key: replaced) }
        // Expiry is the connection's rule, checked on every push whatever the signature.
        var state = ProviderConnectionState()
        await #expect(throws: APNsReason.expiredProviderToken) {
            try await Self.authenticate(token, at: Self.start.addingTimeInterval(3601), state: &state)
        }
    }

    /// A signature a key refused is refused again by a lookup, while the key stays as it was.
    @Test func aRefusedSignatureIsRefusedAgainWithoutACheckWhileItsKeyStays() async throws {
        let signatures = VerifiedSignatures()
        let token = try Self.token(at: Self.start)
        func verify(_ text: String, key: SigningKeyRecord = Self.record) async throws(APNsReason) {
            _ = try await ProviderAuthentication.verify(
                text, connection: ProviderConnectionState(), now: Self.start, verifiedSignatures: signatures, lookUpKey: { _ in key })
        }
        let forged = String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        await #expect(throws: APNsReason.invalidProviderToken) { try await verify(forged) }
        #expect(signatures.refuses(try ProviderToken(parsing: forged), with: Self.record))
        #expect(signatures.refusedCount == 1 && signatures.count == 0)
        // A good token that the server had (in this test) recorded as refused is refused: proof that the
        // signature is not checked again ...
        signatures.insertRefusal(try ProviderToken(parsing: token), by: Self.record)
        await #expect(throws: APNsReason.invalidProviderToken) { try await verify(token) }
        // ... while its key is registered as it was: a replaced key checks it anew (and refuses it: another key).
        let replaced = SigningKeyRecord(
            keyID: Self.record.keyID, teamID: Self.record.teamID,
            publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation, topics: [], createdAt: Date())
        #expect(!signatures.refuses(try ProviderToken(parsing: forged), with: replaced))
        await #expect(throws: APNsReason.invalidProviderToken) { try await verify(forged, key: replaced) }
        #expect(signatures.refuses(try ProviderToken(parsing: forged), with: replaced))
        // A token that verifies is not refused on its way: it passes on a fresh server's signatures.
        let fresh = VerifiedSignatures()
        _ = try await ProviderAuthentication.verify(
            token, connection: ProviderConnectionState(), now: Self.start, verifiedSignatures: fresh, lookUpKey: { _ in Self.record })
        #expect(fresh.refusedCount == 0 && fresh.count == 1)
    }

    @Test func refusedSignaturesAreBounded() throws {
        let signatures = VerifiedSignatures(capacity: 3)
        let refused = try (0..<3).map { try ProviderToken(parsing: try Self.token(at: Self.start.addingTimeInterval(Double($0)))) }
        for token in refused { signatures.insertRefusal(token, by: Self.record) }
        #expect(signatures.refusedCount == 3)
        // One more than the capacity: all go, and the new one stays.
        let another = try ProviderToken(parsing: try Self.token(at: Self.start.addingTimeInterval(9)))
        signatures.insertRefusal(another, by: Self.record)
        #expect(signatures.refusedCount == 1)
        #expect(signatures.refuses(another, with: Self.record))
        #expect(!signatures.refuses(refused[0], with: Self.record))
        // A token longer than any client makes (its claims padded by whoever knows the key's identifier and
        // team) is not remembered: the table's memory stays bounded.
        let claims = Data(#"{"iss":"DEF123GHIJ","iat":1800000000,"pad":"\#(String(repeating: "x", count: 2000))"}"#.utf8).base64URL
        let header = Data(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8).base64URL
        let long = try ProviderToken(parsing: "\(header).\(claims).AAAA")
        #expect(long.text.utf8.count > VerifiedSignatures.longestRefusalRemembered)
        signatures.insertRefusal(long, by: Self.record)
        #expect(!signatures.refuses(long, with: Self.record))
        #expect(signatures.refusedCount == 1)
    }

    @Test func verifiedSignaturesAreBounded() throws {
        func token(_ seconds: Double) throws -> ProviderToken {
            try ProviderToken(parsing: try Self.token(at: Self.start.addingTimeInterval(seconds)))
        }
        let signatures = VerifiedSignatures(capacity: 3)
        // ES256 signatures are randomized: each token is kept to be asked about again.
        let first = try (0..<3).map { try token(Double($0)) }
        for token in first { signatures.insert(token, verifiedWith: Self.record, now: Self.start) }
        #expect(signatures.count == 3)
        // Full: the expired token (issued at 0) makes room for the new one.
        signatures.insert(try token(3600.5), verifiedWith: Self.record, now: Self.start.addingTimeInterval(3600.5))
        #expect(signatures.count == 3)
        #expect(!signatures.contains(first[0], verifiedWith: Self.record))
        #expect(signatures.contains(first[1], verifiedWith: Self.record))
        // Full with none expired: all go.
        signatures.insert(try token(3601), verifiedWith: Self.record, now: Self.start.addingTimeInterval(3600.6))
        #expect(signatures.count == 1)
    }

    @Test func issuedAtMayBeAnIntegerAFloatOrAString() throws {
        for claims in [#"{"iss":"DEF123GHIJ","iat":1800000000}"#, #"{"iss":"DEF123GHIJ","iat":1800000000.5}"#, #"{"iss":"DEF123GHIJ","iat":"1800000000"}"#] {
            let header = Data(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8).base64URL
            let body = Data(claims.utf8).base64URL
            let signature = try Self.key.signature(for: SHA256.hash(data: Data("\(header).\(body)".utf8)))
            let token = try ProviderToken(parsing: "\(header).\(body).\(signature.rawRepresentation.base64URL)")
            #expect(Int(token.issuedAt.timeIntervalSince1970) == 1_800_000_000)
            #expect(token.isSigned(byPublicKeyPEM: Self.record.publicKeyPEM))
        }
    }

    /// An `iat` that is no time is no token: the request inspector records a token's age before it is
    /// verified, and converting NaN, an infinity or 1e300 to an integer trapped the process.
    @Test(arguments: [#""nan""#, #""inf""#, #""-inf""#, "1e300", "-1e300", #""1e300""#, "-1", "253402300800"])
    func anIssuedAtThatIsNoTimeMakesNoToken(iat: String) {
        let header = Data(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8).base64URL
        let body = Data(#"{"iss":"DEF123GHIJ","iat":\#(iat)}"#.utf8).base64URL
        #expect(throws: APNsReason.invalidProviderToken) { try ProviderToken(parsing: "\(header).\(body).AAAA") }
    }
}

extension Data {
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
