import Crypto
public import HuddleCore

/// Checks and normalizes provider signing keys before they are registered, so that a typo shows up at
/// registration rather than as `InvalidProviderToken` on every push.
public enum SigningKeys {
    /// The public key PEM of a key given as a public key PEM, or as the private `.p8` file itself.
    public static func publicKeyPEM(from pem: String) throws(SigningKeyError) -> String {
        if let publicKey = try? P256.Signing.PublicKey(pemRepresentation: pem) { return publicKey.pemRepresentation }
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return privateKey.publicKey.pemRepresentation }
        throw SigningKeyError("publicKey: expected a P-256 key in PEM (an AuthKey_KEYID.p8, or its public half: openssl ec -in AuthKey_KEYID.p8 -pubout)")
    }

    public static func validate(_ key: SigningKeyRecord) throws(SigningKeyError) {
        guard key.keyID.count == 10, key.keyID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw SigningKeyError("keyID: expected the 10-character key identifier, found \"\(key.keyID)\"")
        }
        guard key.teamID.count == 10, key.teamID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw SigningKeyError("teamID: expected the 10-character team identifier, found \"\(key.teamID)\"")
        }
        guard (try? P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)) != nil else {
            throw SigningKeyError("publicKey: expected a P-256 public key in PEM")
        }
        for topic in key.topics where !ProviderRequestCheck.isValidTopic(topic) {
            throw SigningKeyError("topics: \"\(topic)\" is not a bundle identifier")
        }
    }
}

/// A signing key that cannot be registered, and why.
public struct SigningKeyError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
