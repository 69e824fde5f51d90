import Crypto
import Foundation
import HuddleCore
import HuddleWebPush
import Testing

/// RFC 8292's sender identification, as each service checks it.
struct VAPIDTests {
    /// One application server's key, the same in every test (a key type is not `Sendable`, so it is made when read).
    static var key: P256.Signing.PrivateKey {
        get throws { try P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x2A, count: 32)) }
    }
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let origin = "https://127.0.0.1:8443"

    static func claims(
        aud: String = origin, exp: Int64 = 1_800_000_000 + 3600, sub: String? = "mailto:ops@shop.example.com", key: P256.Signing.PrivateKey? = nil
    ) throws -> VAPIDClaims {
        let header = try VAPIDCredentials.authorization(audience: aud, expiresAt: exp, subject: sub, key: key ?? Self.key)
        return try VAPIDCredentials(authorization: header, cryptoKey: nil).verifiedClaims()
    }

    static func fault(_ body: () throws -> Void) -> VAPIDFault? {
        do {
            try body()
            return nil
        } catch {
            return error as? VAPIDFault
        }
    }

    @Test func aSignedTokenVerifiesAndItsClaimsPass() throws {
        let claims = try Self.claims()
        #expect(claims.audience == Self.origin && claims.subject == "mailto:ops@shop.example.com")
        for service in WebPushService.allCases { try claims.check(service: service, audience: Self.origin, now: Self.now) }
    }

    @Test func theClaimsFaultsAreTold() throws {
        #expect(Self.fault { try Self.claims(aud: "https://other.example").check(service: .fcm, audience: Self.origin, now: Self.now) } == .wrongAudience)
        #expect(Self.fault { try Self.claims(exp: 1_800_000_000 - 1).check(service: .apple, audience: Self.origin, now: Self.now) } == .expired)
        // Mozilla allows 60 seconds of lateness, as jsonwebtoken's default leeway does.
        #expect(Self.fault { try Self.claims(exp: 1_800_000_000 - 59).check(service: .mozilla, audience: Self.origin, now: Self.now) } == nil)
        #expect(Self.fault { try Self.claims(exp: 1_800_000_000 - 61).check(service: .mozilla, audience: Self.origin, now: Self.now) } == .expired)
        #expect(Self.fault { try Self.claims(exp: 1_800_000_000 + 86_401).check(service: .fcm, audience: Self.origin, now: Self.now) } == .expiresTooLate)
        #expect(Self.fault { try Self.claims(exp: 1_800_000_000 + 86_400).check(service: .fcm, audience: Self.origin, now: Self.now) } == nil)
    }

    /// `exp` is a stranger's 64-bit integer: the checks compare it, never add to it or subtract from it.
    @Test(arguments: [Int64.max, Int64.min, Int64.max - 59, Int64.min + 1])
    func anyExpiryIsComparedWithoutTrapping(exp: Int64) throws {
        let claims = try Self.claims(exp: exp)
        for service in WebPushService.allCases {
            let fault = Self.fault { try claims.check(service: service, audience: Self.origin, now: Self.now) }
            #expect(fault == (exp > 0 ? .expiresTooLate : .expired))
        }
    }

    @Test(arguments: [
        ("mailto:ops@shop.example.com", true), ("https://shop.example.com/contact", true), ("mailto:a@localhost", false),
        ("mailto:a@x.invalid", false), ("mailto:a@x.local", false), ("mailto: <a@b.co>", false), ("ops@shop.example.com", false),
        ("https://localhost", false), ("http://shop.example.com", false),
    ])
    func appleTakesOnlyAContactSubject(subject: String, taken: Bool) throws {
        let claims = try Self.claims(sub: subject)
        #expect(Self.fault { try claims.check(service: .apple, audience: Self.origin, now: Self.now) } == (taken ? nil : .badSubject))
        // Mozilla and FCM do not check it.
        #expect(Self.fault { try claims.check(service: .fcm, audience: Self.origin, now: Self.now) } == nil)
    }

    @Test func appleRefusesATokenWithoutSubject() throws {
        #expect(Self.fault { try Self.claims(sub: nil).check(service: .apple, audience: Self.origin, now: Self.now) } == .badSubject)
    }

    @Test func aTokenSignedByAnotherKeyFails() throws {
        let header = try VAPIDCredentials.authorization(audience: Self.origin, expiresAt: 1, subject: nil, key: P256.Signing.PrivateKey())
        let token = String(header.split(separator: ",")[0].dropFirst("vapid t=".count))
        let forged = "vapid t=\(token), k=\(Base64URL.encode((try Self.key).publicKey.x963Representation))"
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: forged, cryptoKey: nil).verifiedClaims() } == .badSignature)
    }

    @Test func theHeadersFaultsAreTold() throws {
        let key = Base64URL.encode((try Self.key).publicKey.x963Representation)
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: nil, cryptoKey: nil) } == .missing)
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "key=AAAA", cryptoKey: nil) } == .unknownScheme)
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid k=\(key)", cryptoKey: nil) } == .malformedHeader)
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid t=a.b.c", cryptoKey: nil) } == .missingPublicKey)
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid t=a.b.c, k=AAA!", cryptoKey: nil) } == .publicKey(.notBase64URL))
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid t=a.b.c, k=AAAA", cryptoKey: nil) } == .publicKey(.wrongLength(3)))
        let compressed = Base64URL.encode((try Self.key).publicKey.compressedRepresentation + Data(repeating: 0, count: 32))
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid t=a.b.c, k=\(compressed)", cryptoKey: nil) } == .publicKey(.compressed))
        let offCurve = Base64URL.encode(Data([4] + [UInt8](repeating: 1, count: 64)))
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid t=a.b.c, k=\(offCurve)", cryptoKey: nil).verifiedClaims() } == .publicKey(.notOnCurve))
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "vapid t=a.b, k=\(key)", cryptoKey: nil).verifiedClaims() }
            == .malformedToken("the token is not three base64url parts"))
    }

    @Test func theLegacyFormReadsTheKeyFromCryptoKey() throws {
        let header = try VAPIDCredentials.authorization(audience: Self.origin, expiresAt: 1_800_003_600, subject: nil, key: try Self.key)
        let token = String(header.split(separator: ",")[0].dropFirst("vapid t=".count))
        let publicKey = try Self.key.publicKey.x963Representation
        let key = Base64URL.encode(publicKey)
        let credentials = try VAPIDCredentials(authorization: "WebPush \(token)", cryptoKey: "dh=BAAA;p256ecdsa=\(key)")
        #expect(credentials.form == .legacy && credentials.publicKey == publicKey)
        #expect(try credentials.verifiedClaims().audience == Self.origin)
        #expect(Self.fault { _ = try VAPIDCredentials(authorization: "WebPush \(token)", cryptoKey: "dh=BAAA") } == .missingPublicKey)
    }
}
