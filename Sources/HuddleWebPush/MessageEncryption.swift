public import Crypto
public import Foundation

/// The keys a browser makes for a push subscription (RFC 8291 §2): a P-256 key pair whose public half is the
/// subscription's `p256dh`, and the 16-byte `auth` secret. The push service never has them; Huddle, being the browser
/// too, keeps them to decrypt what it is sent.
public struct SubscriptionKeys: Sendable, Hashable {
    /// The private key's 32 bytes, as a store keeps them (swift-crypto's key types are not `Sendable`).
    public let privateKeyBytes: Data
    public let authSecret: Data

    public init(privateKey: P256.KeyAgreement.PrivateKey, authSecret: Data) {
        self.privateKeyBytes = privateKey.rawRepresentation
        self.authSecret = authSecret
    }

    /// From stored bytes; `nil` when they are not 32 bytes of key and a 16-byte secret. The key itself is read when it is
    /// used (``agreement()``): making a P-256 key from its bytes derives its public half, a cost paid once per push.
    public init?(privateKeyBytes: Data, authSecret: Data) {
        guard authSecret.count == 16, privateKeyBytes.count == 32 else { return nil }
        self.privateKeyBytes = privateKeyBytes
        self.authSecret = authSecret
    }

    /// The private key and its public half (`p256dh`), read once.
    func agreement() throws(DecryptionFailure) -> (privateKey: P256.KeyAgreement.PrivateKey, publicKey: Data) {
        guard let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKeyBytes) else {
            throw DecryptionFailure("the subscription's private key is not a P-256 key")
        }
        return (key, key.publicKey.x963Representation)
    }

    /// New keys, as `PushManager.subscribe()` makes them.
    public static func generate() -> SubscriptionKeys {
        var generator = SystemRandomNumberGenerator()
        return SubscriptionKeys(privateKey: P256.KeyAgreement.PrivateKey(), authSecret: Data((0..<16).map { _ in generator.next() }))
    }

    /// The private key; `nil` for bytes that are not one (``init(privateKeyBytes:authSecret:)`` reads them lazily).
    public var privateKey: P256.KeyAgreement.PrivateKey? {
        try? agreement().privateKey
    }

    /// The `p256dh` public key: 65 bytes, uncompressed; `nil` for bytes that are no key.
    public var publicKey: Data? { try? agreement().publicKey }
}

/// Why a push's body does not decrypt: what the browser would find, in words that name the part at fault.
public struct DecryptionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// The message encryption of RFC 8291 over RFC 8188's `aes128gcm` content coding, and the legacy `aesgcm` coding of
/// the drafts before it (its salt in `Encryption`, the sender's key in `Crypto-Key: dh=`).
public enum MessageEncryption {
    /// `aes128gcm`'s header: salt (16), record size (4), key ID length (1), then the key ID: the sender's 65-byte key.
    static let headerLength = 16 + 4 + 1 + 65
    static let tagLength = 16

    /// Decrypts an `aes128gcm` body sent to `keys` (RFC 8291 §4: one record, its key ID the sender's public key).
    public static func decrypt(aes128gcm body: Data, keys: SubscriptionKeys) throws(DecryptionFailure) -> Data {
        let bytes = [UInt8](body)
        guard bytes.count >= 21 else { throw DecryptionFailure("the aes128gcm header needs 21 bytes before its key ID; the body has \(bytes.count)") }
        let salt = Data(bytes[0..<16])
        let recordSize = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIDLength = Int(bytes[20])
        guard keyIDLength == 65 else {
            throw DecryptionFailure("the aes128gcm header's key ID is \(keyIDLength) bytes; Web Push puts the sender's 65-byte public key there (RFC 8291 §4)")
        }
        guard bytes.count >= headerLength + tagLength + 1 else {
            throw DecryptionFailure("the body ends \(bytes.count < headerLength ? "inside its header" : "before a whole record"): \(bytes.count) bytes")
        }
        guard recordSize >= 18 else { throw DecryptionFailure("the aes128gcm record size is \(recordSize); at least 18 (RFC 8188 §2)") }
        let record = bytes[headerLength...]
        guard record.count <= recordSize else {
            throw DecryptionFailure("the body holds more than one record (\(record.count) bytes past the header, record size \(recordSize)); Web Push sends one (RFC 8291 §4)")
        }
        let senderKeyBytes = Data(bytes[21..<headerLength])
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: senderKeyBytes) else {
            throw DecryptionFailure("the key ID is not a P-256 public key in uncompressed form")
        }
        let (privateKey, publicKey) = try keys.agreement()
        guard let sharedSecret = try? privateKey.sharedSecretFromKeyAgreement(with: senderKey) else {
            throw DecryptionFailure("the sender's key does not agree a key with the subscription's")
        }
        let (key, nonce) = aes128gcmKeys(
            sharedSecret: sharedSecret, authSecret: keys.authSecret, receiverKey: publicKey, senderKey: senderKeyBytes, salt: salt)
        let plain = try open(Data(record), key: key, nonce: nonce)
        // The last record's delimiter is 2, followed only by zeros (RFC 8188 §2).
        guard let delimiter = plain.lastIndex(where: { $0 != 0 }) else { throw DecryptionFailure("the record has no padding delimiter: it is all zeros") }
        guard plain[delimiter] == 2 else {
            throw DecryptionFailure("the record's padding delimiter is \(plain[delimiter]); a last (and only) record ends in 2 (RFC 8188 §2)")
        }
        return plain.prefix(upTo: delimiter)
    }

    /// Encrypts `plaintext` for a subscription, as an application server does (`huddle send --web-push`, tests).
    public static func encrypt(
        aes128gcm plaintext: Data, to publicKey: P256.KeyAgreement.PublicKey, authSecret: Data,
        senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(), salt: Data? = nil
    ) throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let salt = salt ?? Data((0..<16).map { _ in generator.next() as UInt8 })
        let sharedSecret = try senderKey.sharedSecretFromKeyAgreement(with: publicKey)
        let (key, nonce) = aes128gcmKeys(
            sharedSecret: sharedSecret, authSecret: authSecret, receiverKey: publicKey.x963Representation,
            senderKey: senderKey.publicKey.x963Representation, salt: salt)
        let sealed = try AES.GCM.seal(plaintext + [2], using: key, nonce: AES.GCM.Nonce(data: nonce))
        // One record holds it all (RFC 8291 §4): its size covers the plaintext, the delimiter and the tag.
        let recordSize = UInt32(max(4096, plaintext.count + 1 + tagLength))
        var body = salt
        body.append(contentsOf: withUnsafeBytes(of: recordSize.bigEndian, Array.init))
        body.append(65)
        body.append(senderKey.publicKey.x963Representation)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Decrypts a legacy `aesgcm` body: `salt` from `Encryption`, the sender's key from `Crypto-Key: dh=`; records of
    /// 4,096 bytes of plaintext, each beginning with a two-byte padding length.
    public static func decrypt(aesgcm body: Data, salt: Data, senderKey senderKeyBytes: Data, keys: SubscriptionKeys) throws(DecryptionFailure) -> Data {
        guard salt.count == 16 else { throw DecryptionFailure("the Encryption header's salt is \(salt.count) bytes; 16 (aesgcm)") }
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: senderKeyBytes) else {
            throw DecryptionFailure("Crypto-Key's dh is not a P-256 public key in uncompressed form")
        }
        let (privateKey, receiver) = try keys.agreement()
        guard let sharedSecret = try? privateKey.sharedSecretFromKeyAgreement(with: senderKey) else {
            throw DecryptionFailure("Crypto-Key's dh does not agree a key with the subscription's")
        }
        let authKey = sharedSecret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: keys.authSecret, sharedInfo: Data("Content-Encoding: auth\0".utf8), outputByteCount: 32)
        let sender = senderKeyBytes
        var context = Data("P-256\0".utf8)
        context.append(contentsOf: [0, 65]); context.append(receiver)
        context.append(contentsOf: [0, 65]); context.append(sender)
        let inputKey = authKey.withUnsafeBytes { SymmetricKey(data: Data($0)) }
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: aesgcm\0".utf8) + context, outputByteCount: 16)
        let baseNonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: nonce\0".utf8) + context, outputByteCount: 12)
            .withUnsafeBytes { Data($0) }
        let recordLength = 4096 + tagLength
        guard !body.isEmpty else { throw DecryptionFailure("the aesgcm body is empty") }
        var plaintext = Data()
        var offset = body.startIndex, sequence: UInt64 = 0
        while offset < body.endIndex {
            let end = body.index(offset, offsetBy: recordLength, limitedBy: body.endIndex) ?? body.endIndex
            var nonce = [UInt8](baseNonce)
            for index in 0..<8 { nonce[4 + index] ^= UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64(index))) }
            let record = try open(body[offset..<end], key: key, nonce: Data(nonce))
            guard record.count >= 2 else { throw DecryptionFailure("aesgcm record \(sequence) has no padding length") }
            let padding = Int(record[record.startIndex]) << 8 | Int(record[record.startIndex + 1])
            guard padding + 2 <= record.count, record.dropFirst(2).prefix(padding).allSatisfy({ $0 == 0 }) else {
                throw DecryptionFailure("aesgcm record \(sequence)'s padding (\(padding) bytes) is longer than the record or not zeros")
            }
            plaintext.append(record.dropFirst(2 + padding))
            offset = end
            sequence += 1
        }
        return plaintext
    }

    /// The content-encryption key and nonce of RFC 8291 §3.4 and RFC 8188 §2.2–2.3.
    private static func aes128gcmKeys(sharedSecret: SharedSecret, authSecret: Data, receiverKey: Data, senderKey: Data, salt: Data) -> (SymmetricKey, Data) {
        let keyInfo = Data("WebPush: info\0".utf8) + receiverKey + senderKey
        let inputKey = sharedSecret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        return (key, nonce.withUnsafeBytes { Data($0) })
    }

    private static func open(_ record: Data, key: SymmetricKey, nonce: Data) throws(DecryptionFailure) -> Data {
        guard record.count > tagLength else { throw DecryptionFailure("a record of \(record.count) bytes is shorter than its 16-byte tag and one byte") }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(tagLength), tag: record.suffix(tagLength))
            return try AES.GCM.open(box, using: key)
        } catch {
            throw DecryptionFailure("the record does not decrypt with the subscription's keys (AES-GCM's tag does not match): it was encrypted for another subscription's p256dh or auth, or changed on the way")
        }
    }
}
