import Crypto
import Foundation
import HuddleCore
import HuddleWebPush
import Testing

/// RFC 8291's encryption, checked against the RFC's own example (Appendix A) and round trips.
struct MessageEncryptionTests {
    static func bytes(_ text: String) throws -> Data { try #require(Base64URL.decode(Substring(text))) }

    /// RFC 8291 Appendix A: the user agent's keys and the message the application server sent.
    static func appendixKeys() throws -> SubscriptionKeys {
        SubscriptionKeys(
            privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")),
            authSecret: try bytes("BTBZMqHH6r4Tts7J_aSIgg"))
    }

    static let appendixMessage =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    @Test func decryptsTheRFCsExample() throws {
        let keys = try Self.appendixKeys()
        #expect(Base64URL.encode(try #require(keys.publicKey)) == "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
        let plain = try MessageEncryption.decrypt(aes128gcm: Self.bytes(Self.appendixMessage), keys: keys)
        #expect(String(decoding: plain, as: UTF8.self) == "When I grow up, I want to be a watermelon")
    }

    @Test func encryptsTheRFCsExampleByteForByte() throws {
        let keys = try Self.appendixKeys()
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let body = try MessageEncryption.encrypt(
            aes128gcm: Data("When I grow up, I want to be a watermelon".utf8), to: try #require(keys.privateKey).publicKey, authSecret: keys.authSecret,
            senderKey: sender, salt: Self.bytes("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(Base64URL.encode(body) == Self.appendixMessage)
    }

    @Test func roundTripsAndRefusesAnotherSubscriptionsKeys() throws {
        let keys = SubscriptionKeys.generate()
        let text = Data(#"{"web_push": 8030}"#.utf8)
        let body = try MessageEncryption.encrypt(aes128gcm: text, to: try #require(keys.privateKey).publicKey, authSecret: keys.authSecret)
        #expect(try MessageEncryption.decrypt(aes128gcm: body, keys: keys) == text)
        let other = SubscriptionKeys.generate()
        #expect { try MessageEncryption.decrypt(aes128gcm: body, keys: other) } throws: { error in
            (error as? DecryptionFailure)?.description.contains("tag does not match") == true
        }
        let wrongAuth = SubscriptionKeys(privateKey: try #require(keys.privateKey), authSecret: Data(repeating: 7, count: 16))
        #expect(throws: DecryptionFailure.self) { try MessageEncryption.decrypt(aes128gcm: body, keys: wrongAuth) }
    }

    @Test(arguments: [0, 10, 20, 85, 86, 102])
    func aTruncatedBodyIsNamedNotTrapped(length: Int) throws {
        let keys = try Self.appendixKeys()
        let body = try Self.bytes(Self.appendixMessage).prefix(length)
        #expect(throws: DecryptionFailure.self) { try MessageEncryption.decrypt(aes128gcm: body, keys: keys) }
    }

    @Test func aHeaderThatIsNotWebPushsIsNamed() throws {
        let keys = try Self.appendixKeys()
        var body = [UInt8](try Self.bytes(Self.appendixMessage))
        body[20] = 16
        #expect { try MessageEncryption.decrypt(aes128gcm: Data(body), keys: keys) } throws: { error in
            (error as? DecryptionFailure)?.description.contains("key ID is 16 bytes") == true
        }
        body[20] = 65
        body[16...19] = [0, 0, 0, 17]
        #expect { try MessageEncryption.decrypt(aes128gcm: Data(body), keys: keys) } throws: { error in
            (error as? DecryptionFailure)?.description.contains("record size is 17") == true
        }
        body[16...19] = [0, 0, 0, 20]
        #expect { try MessageEncryption.decrypt(aes128gcm: Data(body), keys: keys) } throws: { error in
            (error as? DecryptionFailure)?.description.contains("more than one record") == true
        }
    }
}
