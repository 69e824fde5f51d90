import Crypto
import Foundation
import HuddleCore
@testable import HuddleServer
import HuddleWebPush
import Testing

/// The senders' bounded caches at their own level: the places tokens were installed, and the VAPID tokens verified.
@Suite struct SenderCachesTests {
    @Test func tokenPlacesRememberEachTokensPlaceAndEmptyWhenFull() {
        let places = TokenPlaces(capacity: 2)
        places.remember("a", device: "d1", app: "com.a")
        places.remember("b", device: "d2", app: "com.b")
        #expect(places.place(of: "a")?.device == "d1" && places.place(of: "b")?.app == "com.b")
        // Remembering one already there takes no room.
        places.remember("a", device: "d1", app: "com.a")
        #expect(places.place(of: "b") != nil)
        // A third past the bound empties the rest: what is forgotten is found again in the store.
        places.remember("c", device: "d3", app: "com.c")
        #expect(places.place(of: "c")?.device == "d3" && places.place(of: "a") == nil && places.place(of: "b") == nil)
        #expect(places.place(of: "unknown") == nil)
    }

    @Test func aVerifiedTokenIsNotVerifiedAgainButTheSameTokenWithAnotherKeyIs() throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x21, count: 32))
        let header = try VAPIDCredentials.authorization(audience: "https://localhost:8443", expiresAt: 1_900_000_000, subject: nil, key: key)
        let tokens = VerifiedTokens()
        let claims = try tokens.claims(of: VAPIDCredentials(authorization: header, cryptoKey: nil))
        #expect(claims.audience == "https://localhost:8443" && claims.expiresAt == 1_900_000_000)
        #expect(try tokens.claims(of: VAPIDCredentials(authorization: header, cryptoKey: nil)) == claims)

        // The same token presented with another key: its own entry, whose signature does not verify.
        let other = try P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x22, count: 32)).publicKey.x963Representation
        let token = header.split(separator: ",")[0].dropFirst("vapid t=".count)
        let swapped = "vapid t=\(token), k=\(Base64URL.encode(other))"
        #expect(throws: VAPIDFault.badSignature) { try tokens.claims(of: VAPIDCredentials(authorization: swapped, cryptoKey: nil)) }
    }
}
