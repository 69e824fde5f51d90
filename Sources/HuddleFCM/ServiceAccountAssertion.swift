import Crypto
import _CryptoExtras
public import Foundation
public import HuddleCore

/// A refused OAuth 2.0 request, as Google's token endpoint answers one: HTTP 400 (401 for a client it does not know)
/// with `{"error": …, "error_description": …}` (RFC 6749 section 5.2).
public struct OAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_grant`, `invalid_request`, `unsupported_grant_type`, `invalid_scope`.
    public var error: String
    public var errorDescription: String

    public init(_ error: String, _ errorDescription: String) {
        self.error = error
        self.errorDescription = errorDescription
    }

    public var description: String { "\(error): \(errorDescription)" }

    public var json: JSONValue {
        .object(JSONObject([("error", .string(error)), ("error_description", .string(errorDescription))]))
    }
}

/// The JSON Web Token a Google client library signs with a service account's key and sends to the account's
/// `token_uri` (the JWT bearer grant, RFC 7523): RS256, the key's id as `kid`, the account's email as `iss`, the
/// scopes asked for, and at most an hour between `iat` and `exp` (docs/fcm-research.md section 3.2).
public struct ServiceAccountAssertion: Sendable, Hashable {
    public let text: String
    public let keyID: String
    public let issuer: String
    public let audience: String
    public let scopes: [String]
    public let issuedAt: Date
    public let expiresAt: Date
    private let signingInput: Substring
    private let signature: Data

    /// The audience Google's libraries put in every assertion, whatever their `token_uri`.
    public static let googleTokenAudience = "https://oauth2.googleapis.com/token"
    /// The scopes that let an access token send messages (either one).
    public static let messagingScopes: Set<String> = [
        "https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/firebase.messaging",
    ]
    /// Google's longest assertion lifetime, and the clock skew allowed on either side.
    public static let longestLifetime: TimeInterval = 3_600
    public static let allowedSkew: TimeInterval = 300
    /// The longest assertion read (Google's libraries make about 800 bytes with six scopes).
    public static let maximumLength = 8_192

    /// Reads an assertion's header and claims; its signature is checked by ``verify(publicKeyPEM:now:)``.
    public init(parsing text: String) throws(OAuthError) {
        guard text.utf8.count <= Self.maximumLength else { throw OAuthError("invalid_grant", "Invalid JWT: longer than \(Self.maximumLength) bytes.") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]), let header = try? JSONParser.parse(headerData),
            let claims = try? JSONParser.parse(claimsData)
        else { throw OAuthError("invalid_grant", "Invalid JWT: the assertion is not a signed JSON Web Token.") }
        guard case .string("RS256")? = header["alg"] else { throw OAuthError("invalid_grant", "Invalid JWT: alg must be RS256.") }
        guard case .string(let keyID)? = header["kid"], !keyID.isEmpty else {
            throw OAuthError("invalid_grant", "Invalid JWT: the header has no kid (the service account's private_key_id).")
        }
        guard case .string(let issuer)? = claims["iss"] else { throw OAuthError("invalid_grant", "Invalid JWT: no iss claim.") }
        guard case .string(let audience)? = claims["aud"] else { throw OAuthError("invalid_grant", "Invalid JWT: no aud claim.") }
        guard let issuedAt = Self.seconds(claims["iat"]), let expiresAt = Self.seconds(claims["exp"]) else {
            throw OAuthError("invalid_grant", "Invalid JWT: iat and exp must be numbers of seconds.")
        }
        var scopes: [String] = []
        if case .string(let scope)? = claims["scope"] { scopes = scope.split(separator: " ").map(String.init) }
        self.text = text
        self.keyID = keyID
        self.issuer = issuer
        self.audience = audience
        self.scopes = scopes
        self.issuedAt = Date(timeIntervalSince1970: issuedAt)
        self.expiresAt = Date(timeIntervalSince1970: expiresAt)
        self.signature = signature
        signingInput = text[text.startIndex..<parts[1].endIndex]
    }

    /// Checks what the grant checks: the signature against the account's key, the issuer, the audience (Google's
    /// token URL, or a URL ending in `/token` as golang.org/x/oauth2 sends its `token_uri`), the times and a scope.
    public func verify(for account: ServiceAccountRecord, now: Date) throws(OAuthError) {
        guard isSigned(byPublicKeyPEM: account.publicKeyPEM) else { throw OAuthError("invalid_grant", "Invalid JWT Signature.") }
        try checkClaims(for: account, now: now)
    }

    /// Everything the grant checks but the signature: what an access token made of this assertion is checked for again
    /// on each use, its signature having been verified once.
    public func checkClaims(for account: ServiceAccountRecord, now: Date) throws(OAuthError) {
        guard issuer == account.clientEmail else {
            throw OAuthError("invalid_grant", "Invalid JWT: iss is \(issuer.prefix(100)), not the key's service account \(account.clientEmail).")
        }
        guard audience == Self.googleTokenAudience || audience.hasSuffix("/token") else {
            throw OAuthError("invalid_grant", "Invalid JWT: aud must be \(Self.googleTokenAudience).")
        }
        try checkTimes(now: now)
        guard !scopes.isEmpty else { throw OAuthError("invalid_scope", "Invalid OAuth scope or ID token audience provided.") }
    }

    /// Whether the times are usable at `now`: a short-lived token (an hour at most), issued and not yet expired.
    public func checkTimes(now: Date) throws(OAuthError) {
        guard expiresAt.timeIntervalSince(issuedAt) <= Self.longestLifetime + 1, issuedAt.timeIntervalSince(now) <= Self.allowedSkew,
            now.timeIntervalSince(expiresAt) < Self.allowedSkew
        else {
            throw OAuthError(
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")
        }
    }

    /// Whether its scopes let it send messages.
    public var allowsMessaging: Bool { scopes.contains(where: Self.messagingScopes.contains) }

    public func isSigned(byPublicKeyPEM pem: String) -> Bool {
        guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) else { return false }
        return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
    }

    private static func seconds(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let seconds)?: Double(seconds)
        case .double(let seconds)? where seconds.isFinite: seconds
        default: nil
        }
    }

    /// Signs an assertion as Google's libraries do: what `huddle send --fcm` and tests use.
    public static func sign(
        keyID: String, clientEmail: String, scopes: [String], audience: String = googleTokenAudience, issuedAt: Date, privateKeyPEM: String
    ) throws -> String {
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        let header = JSONValue.object(JSONObject([("alg", .string("RS256")), ("typ", .string("JWT")), ("kid", .string(keyID))]))
        let seconds = Int64(issuedAt.timeIntervalSince1970)
        let claims = JSONValue.object(JSONObject([
            ("iss", .string(clientEmail)), ("scope", .string(scopes.joined(separator: " "))), ("aud", .string(audience)),
            ("iat", .integer(seconds)), ("exp", .integer(seconds + 3_600)),
        ]))
        let input = Base64URL.encode(Data(header.jsonUTF8())) + "." + Base64URL.encode(Data(claims.jsonUTF8()))
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

/// The access tokens Huddle's token endpoint gives: the verified assertion itself behind Google's `ya29.` prefix, so
/// that every server sharing a store can check one (against the account's key, by its signature) without a table of
/// tokens, and a token lives exactly as long as the assertion it came from. Holding one gives what holding the
/// assertion gives (the grant again), nothing more.
public enum FCMAccessToken {
    public static let prefix = "ya29.huddle."

    public static func token(for assertion: ServiceAccountAssertion) -> String { prefix + assertion.text }

    /// The assertion inside a bearer token, or `nil` for a token Huddle did not give.
    public static func assertion(in token: String) -> ServiceAccountAssertion? {
        guard token.utf8.starts(with: prefix.utf8) else { return nil }
        return try? ServiceAccountAssertion(parsing: String(token.dropFirst(prefix.count)))
    }
}

/// Service-account keys as Google makes them: RSA, 2048 bits.
public enum ServiceAccountKeys {
    /// A new key: its private half as PKCS #8 PEM (the key file's `private_key`) and its public half, PEM.
    public static func make() throws -> (privateKeyPEM: String, publicKeyPEM: String) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return (key.pkcs8PEMRepresentation, key.publicKey.pemRepresentation)
    }

    /// Whether `pem` is an RSA public key of 2048 bits or more.
    public static func isRSAPublicKey(_ pem: String) -> Bool {
        guard pem.utf8.count <= 4_096, let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) else { return false }
        return key.keySizeInBits >= 2048
    }
}
