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
    /// The host names a request without a token must name where one is taken: the site's own (``SiteGuard``), since a
    /// browser can send such a request too, and a page whose name an attacker points at this server (DNS rebinding)
    /// must send nothing.
    let hosts: AllowedHosts
    /// Tokens whose signature was verified, with the key that verified it: a client presents one token for up to an
    /// hour, so its RSA signature is checked once.
    private let verified = VerifiedAccessTokens()

    init(accounts: ServiceAccountCache, requiresToken: Bool, hosts: AllowedHosts) {
        self.accounts = accounts
        self.requiresToken = requiresToken
        self.hosts = hosts
    }

    /// The service account a request acts as, checked for acting on `project` (`nil`: whatever project is the
    /// account's own, for the Instance ID API, which names none). `nil` when the server takes requests without a token
    /// and this one has none.
    /// - Throws: ``FCMError`` as Google's front end answers: 401 `UNAUTHENTICATED`, 403 `PERMISSION_DENIED`.
    func account(of request: Request, project: String?, now: Date) async throws -> ServiceAccountRecord? {
        try await account(headers: request.headers, authority: request.head.authority, project: project, now: now)
    }

    /// ``account(of:project:now:)`` of a request's fields and the authority it addresses, whatever carried it.
    func account(headers: HTTPFields, authority: String?, project: String?, now: Date) async throws -> ServiceAccountRecord? {
        guard let header = headers[.authorization] else {
            guard requiresToken else {
                guard hosts.allows(authority) else {
                    throw FCMError(
                        httpStatus: 421, status: "PERMISSION_DENIED",
                        message: "This server takes requests without a token only under its own host names, not \""
                            + String((authority ?? "").prefix(100)) + "\" (start huddle serve with --public-host NAME to add a name).")
                }
                return nil
            }
            throw Self.unauthenticated(
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
        }
        guard header.utf8.count <= ServiceAccountAssertion.maximumLength + 64, header.utf8.count > 7,
            header.utf8.prefix(7).elementsEqual("bearer ".utf8, by: { ($0 | 0x20) == $1 })
        else { throw Self.invalidCredentials }
        let token = String(header.dropFirst(7))
        // A token seen before is not read again: its assertion, as its key verified it, is kept beside it.
        let assertion: ServiceAccountAssertion
        let account: ServiceAccountRecord
        if let known = verified.assertion(of: token), let current = try await accounts.record(id: known.keyID),
            known.issuer == current.clientEmail, verified.contains(token, key: current.publicKeyPEM)
        {
            (assertion, account) = (known, current)
        } else {
            guard let parsed = FCMAccessToken.assertion(in: token), let found = try await accounts.record(id: parsed.keyID),
                parsed.issuer == found.clientEmail, parsed.isSigned(byPublicKeyPEM: found.publicKeyPEM)
            else { throw Self.invalidCredentials }
            verified.insert(token, assertion: parsed, key: found.publicKeyPEM)
            (assertion, account) = (parsed, found)
        }
        // The token is the assertion the grant took: it is held to the grant's every check again (a token made of an
        // assertion the grant would refuse, with a ten-year expiry or another audience, is no token), and ends when
        // the assertion does, an hour after it was issued at most.
        do {
            try assertion.checkClaims(for: account, now: now)
        } catch {
            throw Self.invalidCredentials
        }
        guard assertion.expiresAt > now else { throw Self.invalidCredentials }
        guard assertion.allowsMessaging else {
            throw FCMError(httpStatus: 403, status: "PERMISSION_DENIED", message: "Request had insufficient authentication scopes.")
        }
        if let project, account.project != project {
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

/// Access tokens whose signature a service account's key verified, with their assertion, bounded: past ``capacity``
/// the table starts over.
final class VerifiedAccessTokens: Sendable {
    private struct Entry {
        var assertion: ServiceAccountAssertion
        var key: String
    }

    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The assertion of a token verified before.
    func assertion(of token: String) -> ServiceAccountAssertion? {
        entries.withLock { $0[token]?.assertion }
    }

    /// Whether `key` (as the account has it now) verified the token.
    func contains(_ token: String, key: String) -> Bool {
        entries.withLock { $0[token]?.key == key }
    }

    func insert(_ token: String, assertion: ServiceAccountAssertion, key: String) {
        entries.withLock { entries in
            if entries.count >= capacity, entries[token] == nil { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(assertion: assertion, key: key)
        }
    }
}
