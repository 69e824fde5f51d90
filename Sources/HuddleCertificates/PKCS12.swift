import Crypto
import Foundation
import SwiftASN1
import _CryptoExtras

/// Writes a PKCS #12 file (RFC 7292) holding one certificate and its private key, the way OpenSSL 3 writes one
/// by default, so that `openssl pkcs12`, Python's `cryptography`, Java's KeyStore and Keychain Access read it:
/// the key in a shrouded key bag encrypted with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC; RFC 8018), the
/// certificate in a certificate bag, both bags named by the same local key identifier, and an HMAC-SHA256
/// integrity MAC keyed with PKCS #12's own key derivation (RFC 7292, appendix B).
///
/// Written here with swift-asn1 and swift-crypto: BoringSSL's `PKCS12_create` is inside swift-nio-ssl, which does
/// not export it, and these few structures are less code than a C shim.
enum PKCS12 {
    /// OpenSSL's default count (`PKCS12_DEFAULT_ITER`), for the key's encryption and for the MAC.
    static let iterations = 2048

    static func write(certificateDER: [UInt8], privateKeyPKCS8: [UInt8], password: String, friendlyName: String) throws -> [UInt8] {
        // Both bags carry the certificate's SHA-1, as OpenSSL's do, so a reader pairs the key with its certificate.
        let localKeyID = Array(Insecure.SHA1.hash(data: certificateDER))
        let certificateContents = try der { safeContents in
            try safeContents.appendConstructedNode(identifier: .sequence) { safeContents in
                try appendBag(to: &safeContents, type: OID.certificateBag, localKeyID: localKeyID, friendlyName: friendlyName) { bag in
                    try bag.appendConstructedNode(identifier: .sequence) { certificateBag in
                        try certificateBag.serialize(OID.x509Certificate)
                        try certificateBag.appendConstructedNode(identifier: explicitZero) {
                            try $0.serialize(ASN1OctetString(contentBytes: certificateDER[...]))
                        }
                    }
                }
            }
        }
        let keyContents = try der { safeContents in
            try safeContents.appendConstructedNode(identifier: .sequence) { safeContents in
                try appendBag(to: &safeContents, type: OID.shroudedKeyBag, localKeyID: localKeyID, friendlyName: friendlyName) { bag in
                    try appendEncryptedPrivateKeyInfo(to: &bag, privateKeyPKCS8: privateKeyPKCS8, password: password)
                }
            }
        }
        let authenticatedSafe = try der { safe in
            try safe.appendConstructedNode(identifier: .sequence) { safe in
                try appendDataContentInfo(to: &safe, content: certificateContents)
                try appendDataContentInfo(to: &safe, content: keyContents)
            }
        }
        let macSalt = randomBytes(16)
        let macKey = macKey(password: password, salt: macSalt, iterations: iterations)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: authenticatedSafe, using: SymmetricKey(data: macKey)))
        return try der { pfx in
            try pfx.appendConstructedNode(identifier: .sequence) { pfx in
                try pfx.serialize(3)
                try appendDataContentInfo(to: &pfx, content: authenticatedSafe)
                try pfx.appendConstructedNode(identifier: .sequence) { macData in
                    try macData.appendConstructedNode(identifier: .sequence) { digestInfo in
                        try appendAlgorithm(to: &digestInfo, OID.sha256)
                        try digestInfo.serialize(ASN1OctetString(contentBytes: mac[...]))
                    }
                    try macData.serialize(ASN1OctetString(contentBytes: macSalt[...]))
                    try macData.serialize(iterations)
                }
            }
        }
    }

    /// PKCS #12's key derivation (RFC 7292, B.2) for the MAC key (ID 3), with SHA-256, for a key no longer
    /// than one digest (the MAC's 32 bytes): the password as a BMPString with its two zero bytes, salt and password
    /// each repeated to a whole number of 64-byte blocks, hashed `iterations` times after 64 bytes of the ID.
    static func macKey(password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        let blockSize = 64
        func filled(_ bytes: [UInt8]) -> [UInt8] {
            guard !bytes.isEmpty else { return [] }
            let length = blockSize * ((bytes.count + blockSize - 1) / blockSize)
            return (0..<length).map { bytes[$0 % bytes.count] }
        }
        let bmpPassword = bmp(password) + [0, 0]
        var digest = Array(SHA256.hash(data: [UInt8](repeating: 3, count: blockSize) + filled(salt) + filled(bmpPassword)))
        for _ in 1..<iterations { digest = Array(SHA256.hash(data: digest)) }
        return digest
    }

    /// `EncryptedPrivateKeyInfo` (RFC 5958) with PBES2: PBKDF2-HMAC-SHA256 over the password's UTF-8, then
    /// AES-256-CBC.
    private static func appendEncryptedPrivateKeyInfo(to serializer: inout DER.Serializer, privateKeyPKCS8: [UInt8], password: String) throws {
        let salt = randomBytes(16)
        let iv = randomBytes(16)
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: iterations)
        let encrypted = try AES._CBC.encrypt(privateKeyPKCS8, using: key, iv: AES._CBC.IV(ivBytes: iv))
        try serializer.appendConstructedNode(identifier: .sequence) { info in
            try info.appendConstructedNode(identifier: .sequence) { algorithm in
                try algorithm.serialize(OID.pbes2)
                try algorithm.appendConstructedNode(identifier: .sequence) { parameters in
                    try parameters.appendConstructedNode(identifier: .sequence) { derivation in
                        try derivation.serialize(OID.pbkdf2)
                        try derivation.appendConstructedNode(identifier: .sequence) { pbkdf2 in
                            try pbkdf2.serialize(ASN1OctetString(contentBytes: salt[...]))
                            try pbkdf2.serialize(iterations)
                            try appendAlgorithm(to: &pbkdf2, OID.hmacWithSHA256)
                        }
                    }
                    try parameters.appendConstructedNode(identifier: .sequence) { scheme in
                        try scheme.serialize(OID.aes256CBC)
                        try scheme.serialize(ASN1OctetString(contentBytes: iv[...]))
                    }
                }
            }
            try info.serialize(ASN1OctetString(contentBytes: Array(encrypted)[...]))
        }
    }

    /// A `SafeBag`: its type, its value (explicitly tagged [0]) and the attributes naming it.
    private static func appendBag(
        to serializer: inout DER.Serializer, type: ASN1ObjectIdentifier, localKeyID: [UInt8], friendlyName: String,
        value: (inout DER.Serializer) throws -> Void
    ) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { bag in
            try bag.serialize(type)
            try bag.appendConstructedNode(identifier: explicitZero, value)
            try bag.appendConstructedNode(identifier: .set) { attributes in
                try attribute(to: &attributes, OID.friendlyName) { try $0.serialize(ASN1BMPString(contentBytes: bmp(String(friendlyName.prefix(200)))[...])) }
                try attribute(to: &attributes, OID.localKeyID) { try $0.serialize(ASN1OctetString(contentBytes: localKeyID[...])) }
            }
        }
    }

    private static func attribute(
        to serializer: inout DER.Serializer, _ type: ASN1ObjectIdentifier, value: (inout DER.Serializer) throws -> Void
    ) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { attribute in
            try attribute.serialize(type)
            try attribute.appendConstructedNode(identifier: .set, value)
        }
    }

    /// A `ContentInfo` of type data: `content` in an OCTET STRING, explicitly tagged [0].
    private static func appendDataContentInfo(to serializer: inout DER.Serializer, content: [UInt8]) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { info in
            try info.serialize(OID.data)
            try info.appendConstructedNode(identifier: explicitZero) { try $0.serialize(ASN1OctetString(contentBytes: content[...])) }
        }
    }

    /// An `AlgorithmIdentifier` with NULL parameters.
    private static func appendAlgorithm(to serializer: inout DER.Serializer, _ algorithm: ASN1ObjectIdentifier) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { identifier in
            try identifier.serialize(algorithm)
            try identifier.serialize(ASN1Null())
        }
    }

    /// Text as a BMPString's content: UTF-16, big-endian.
    private static func bmp(_ text: String) -> [UInt8] {
        text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    private static func der(_ write: (inout DER.Serializer) throws -> Void) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try write(&serializer)
        return serializer.serializedBytes
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static let explicitZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    private enum OID {
        static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
        static let shroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 2]
        static let certificateBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 3]
        static let x509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 22, 1]
        static let friendlyName: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 20]
        static let localKeyID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 21]
        static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 13]
        static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 12]
        static let hmacWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 2, 9]
        static let aes256CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 42]
        static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    }
}
