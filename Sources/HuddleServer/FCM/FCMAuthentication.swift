import Foundation
import HuddleCore
import HuddleFCM
import Hummingbird
import Synchronization

/// Who may use the FCM API: the bearer of an access token that Huddle's token endpoint gave for a registered service
/// account, acting for that account's project only. docs/fcm.md says what is checked and answered.
struct FCMAuthentication: Sendable {
    let accounts: ServiceAccountCache
    /// Whether a request without a token is refused (every server but one run with `--development`).
    let requiresToken: Bool
    /// Tokens whose signature was verified, with the key that verified it: a client presents one token for up to an
    /// hour, so its RSA signature is checked once.
    private let verified = VerifiedAccessTokens()

    init(accounts: ServiceAccountCache, requiresToken: Bool) {
        self.accounts = accounts
        self.requiresToken = requiresToken
    }

    /// The service account a request acts as, checked for sending to `project` (`nil` when the server takes requests
    /// without a token and this one has none).
    /// - Throws: ``FCMError`` as Google's front end answers: 401 `UNAUTHENTICATED`, 403 `PERMISSION_DENIED`.
    func account(of request: Request, project: String, now: Date) async throws -> ServiceAccountRecord? {
        guard let header = request.headers[.authorization] else {
            guard requiresToken else { return nil }
            throw Self.unauthenticated(
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
        }
        guard header.utf8.count <= ServiceAccountAssertion.maximumLength + 64, header.lowercased().hasPrefix("bearer "),
            let assertion = FCMAccessToken.assertion(in: String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)),
            let account = try await accounts.record(id: assertion.keyID), assertion.issuer == account.clientEmail,
            verified.contains(assertion.text, key: account.publicKeyPEM) || assertion.isSigned(byPublicKeyPEM: account.publicKeyPEM)
        else { throw Self.invalidCredentials }
        verified.insert(assertion.text, key: account.publicKeyPEM)
        guard assertion.expiresAt > now else { throw Self.invalidCredentials }
        guard assertion.allowsMessaging else {
            throw FCMError(httpStatus: 403, status: "PERMISSION_DENIED", message: "Request had insufficient authentication scopes.")
        }
        guard account.project == project else {
            throw FCMError(
                httpStatus: 403, status: "PERMISSION_DENIED",
                message: "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project.prefix(100))' (or it may not exist).")
        }
        return account
    }

    private static func unauthenticated(_ message: String) -> FCMError {
        FCMError(httpStatus: 401, status: "UNAUTHENTICATED", message: message)
    }

    private static let invalidCredentials = unauthenticated(
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
}

/// Access tokens whose signature a service account's key verified, bounded: past ``capacity`` the table starts over.
final class VerifiedAccessTokens: Sendable {
    let capacity: Int
    private let entries = Mutex<[String: String]>([:])

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    func contains(_ token: String, key: String) -> Bool {
        entries.withLock { $0[token] == key }
    }

    func insert(_ token: String, key: String) {
        entries.withLock { entries in
            if entries.count >= capacity, entries[token] == nil { entries.removeAll(keepingCapacity: true) }
            entries[token] = key
        }
    }
}
