public import Foundation
public import HuddleCore

/// What one provider connection has proven: the key it is bound to, and the token it last presented.
///
/// APNs binds a connection to the team of its first token, and refuses a new token that comes less than
/// 20 minutes after the previous one; Huddle keeps the same state so that clients that get this wrong
/// find out before they reach Apple.
public struct ProviderConnectionState: Sendable {
    public private(set) var key: SigningKeyRecord?
    public private(set) var token: ProviderToken?
    public private(set) var tokenSince: Date?

    public init() {}

    /// Whether `text` is the token this connection already verified with `key`, so that its signature
    /// need not be checked again. A key replaced or removed since makes the answer no.
    public func hasVerified(_ text: String, with key: SigningKeyRecord) -> Bool {
        token?.text == text && self.key == key
    }

    /// Checks that presenting `token` is not a forbidden change of team or a too early new token.
    public func checkUpdate(to token: ProviderToken, now: Date) throws(APNsReason) {
        guard self.token?.text != token.text else { return }
        if let bound = key, bound.keyID != token.keyID || bound.teamID != token.teamID {
            throw .unrelatedKeyIdInToken
        }
        if let since = tokenSince, now.timeIntervalSince(since) < ProviderAuthentication.minimumTokenInterval {
            throw .tooManyProviderTokenUpdates
        }
    }

    /// Admits a token whose signature `key` verified, under the connection's rules, and binds the
    /// connection to it.
    ///
    /// It never suspends: a server applies it while holding the lock over the connection's state, so that
    /// two streams of one connection presenting different tokens at once cannot both get through.
    /// - Throws: the ``APNsReason`` to answer with; the state is unchanged then.
    public mutating func admit(
        _ token: ProviderToken, key: SigningKeyRecord, bundleIdentifier: String, now: Date
    ) throws(APNsReason) {
        try checkUpdate(to: token, now: now)
        guard now.timeIntervalSince(token.issuedAt) <= ProviderAuthentication.tokenLifetime else { throw .expiredProviderToken }
        guard token.issuedAt.timeIntervalSince(now) <= ProviderAuthentication.allowedClockSkew else { throw .invalidProviderToken }
        guard key.allows(bundleIdentifier) else { throw .invalidProviderToken }
        if self.token?.text != token.text { tokenSince = now }
        self.token = token
        self.key = key
    }
}

/// Token authentication of provider requests (apns.md, "Provider tokens").
public enum ProviderAuthentication {
    /// How long a token is valid after its `iat`.
    public static let tokenLifetime: TimeInterval = 3600
    /// A connection must keep its token at least this long before presenting a new one.
    public static let minimumTokenInterval: TimeInterval = 20 * 60
    /// How far in the future an `iat` may be, for clocks that run a little fast.
    public static let allowedClockSkew: TimeInterval = 300

    /// Parses a request's token and verifies its signature with its key, as it is registered now.
    ///
    /// The connection's rules are checked here too, against `connection` as it was, so that refusals come
    /// in APNs's order; a caller sharing the state between streams applies them again, atomically, with
    /// ``ProviderConnectionState/admit(_:key:bundleIdentifier:now:)``.
    /// - Parameters:
    ///   - text: the token from `authorization: bearer …`, or `nil`.
    ///   - verifiedSignatures: signatures verified or refused before, on any connection; a new answer is added.
    ///   - lookUpKey: finds a registered key by its identifier, as it is now (a removed key is `nil`).
    /// - Returns: the token and the key that verified it.
    /// - Throws: the ``APNsReason`` to answer with.
    public static func verify(
        _ text: String?, connection: ProviderConnectionState, now: Date, verifiedSignatures: VerifiedSignatures,
        lookUpKey: (String) async throws -> SigningKeyRecord?
    ) async throws(APNsReason) -> (token: ProviderToken, key: SigningKeyRecord) {
        guard let text else { throw .missingProviderToken }
        let token: ProviderToken
        if let current = connection.token, current.text == text {
            token = current
        } else {
            token = try ProviderToken(parsing: text)
            try connection.checkUpdate(to: token, now: now)
        }
        let key: SigningKeyRecord?
        do {
            key = try await lookUpKey(token.keyID)
        } catch {
            throw .internalServerError
        }
        guard let key, key.teamID == token.teamID else { throw .invalidProviderToken }
        if connection.hasVerified(text, with: key) || verifiedSignatures.contains(token, verifiedWith: key) {
            return (token, key)
        }
        if verifiedSignatures.refuses(token, with: key) { throw .invalidProviderToken }
        guard token.isSigned(byPublicKeyPEM: key.publicKeyPEM) else {
            verifiedSignatures.insertRefusal(token, by: key)
            throw .invalidProviderToken
        }
        verifiedSignatures.insert(token, verifiedWith: key, now: now)
        return (token, key)
    }
}

extension SigningKeyRecord {
    /// Whether this key may send to an app: any app when it lists no topics.
    public func allows(_ bundleIdentifier: String) -> Bool {
        topics.isEmpty || topics.contains(bundleIdentifier)
    }
}
