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

    mutating func bind(_ token: ProviderToken, key: SigningKeyRecord, at now: Date) {
        self.key = key
        self.token = token
        self.tokenSince = now
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

    /// Checks a request's token against the connection's state, binding the connection on success.
    /// - Parameters:
    ///   - text: the token from `authorization: bearer …`, or `nil`.
    ///   - bundleIdentifier: the app the push is for; the key must be allowed to send to it.
    ///   - lookUpKey: finds a registered key by its identifier.
    /// - Throws: the ``APNsReason`` to answer with.
    public static func authenticate(
        _ text: String?, bundleIdentifier: String, now: Date, state: inout ProviderConnectionState,
        lookUpKey: (String) async throws -> SigningKeyRecord?
    ) async throws(APNsReason) {
        guard let text else { throw .missingProviderToken }
        if let current = state.token, current.text == text, let key = state.key {
            // The token this connection already proved: only its age and the topic can change.
            guard now.timeIntervalSince(current.issuedAt) <= tokenLifetime else { throw .expiredProviderToken }
            guard key.allows(bundleIdentifier) else { throw .invalidProviderToken }
            return
        }
        let token = try ProviderToken(parsing: text)
        if let bound = state.key, bound.keyID != token.keyID || bound.teamID != token.teamID {
            throw .unrelatedKeyIdInToken
        }
        if let since = state.tokenSince, now.timeIntervalSince(since) < minimumTokenInterval {
            throw .tooManyProviderTokenUpdates
        }
        let key: SigningKeyRecord?
        do {
            key = try await lookUpKey(token.keyID)
        } catch {
            throw .internalServerError
        }
        guard let key, key.teamID == token.teamID, token.isSigned(byPublicKeyPEM: key.publicKeyPEM) else {
            throw .invalidProviderToken
        }
        guard now.timeIntervalSince(token.issuedAt) <= tokenLifetime else { throw .expiredProviderToken }
        guard token.issuedAt.timeIntervalSince(now) <= allowedClockSkew else { throw .invalidProviderToken }
        guard key.allows(bundleIdentifier) else { throw .invalidProviderToken }
        state.bind(token, key: key, at: now)
    }
}

extension SigningKeyRecord {
    /// Whether this key may send to an app: any app when it lists no topics.
    func allows(_ bundleIdentifier: String) -> Bool {
        topics.isEmpty || topics.contains(bundleIdentifier)
    }
}
