import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Who is the admin, in one place: the admin API takes the token as a bearer token, the pages (and the
/// inspector's requests from them) a session cookie that signing in with the token opened.
///
/// A session is a random value this server keeps, not derived from the token: it tells nothing about the
/// token, expires, and ends at sign-out. Wrong tokens are counted per client (``SignInAttempts``), so that a
/// token cannot be guessed at the speed of the network, and the right one always gets in.
final class AdminAccess: Sendable {
    static let cookieName = "huddle-admin"
    static let sessionLifetime: Duration = .seconds(12 * 3600)
    /// Sessions kept at once; signing in past that ends the oldest.
    static let maximumSessions = 1_000

    /// The admin token; the admin API and pages are off without one.
    let token: String?
    private let sessions = Mutex<[String: ContinuousClock.Instant]>([:])
    /// Wrong tokens by client address, of every token the server checks.
    let attempts: SignInAttempts

    init(token: String?, attempts: SignInAttempts = SignInAttempts()) {
        self.token = token
        self.attempts = attempts
    }

    /// Admits the admin: a bearer token, or (`acceptingCookie`) the session cookie.
    /// - Throws: ``APIError`` `unauthorized`, or `tooManyRequests` for a wrong token from a client that gave too many.
    func authorize(_ request: Request, context: HuddleRequestContext, acceptingCookie: Bool) async throws {
        guard let token else {
            throw APIError(.unauthorized, "the admin API is off: start huddle serve with --admin-token or HUDDLE_ADMIN_TOKEN")
        }
        if let presented = Secrets.bearer(request) {
            try await check(presented, against: token, client: context.clientAddress)
            return
        }
        if acceptingCookie, isSignedIn(request) { return }
        throw APIError(
            .unauthorized,
            "send the admin token as Authorization: Bearer <token>" + (acceptingCookie ? " (or sign in on the home page)" : ""))
    }

    /// Whether the request carries a live admin session (the home page asks this to choose what it shows).
    func isSignedIn(_ request: Request) -> Bool {
        guard token != nil, let value = request.cookies[Self.cookieName]?.value else { return false }
        let now = ContinuousClock.now
        return sessions.withLock { sessions in
            guard let expiry = sessions[value] else { return false }
            if expiry <= now { sessions[value] = nil }
            return expiry > now
        }
    }

    /// Opens a session for whoever presents the admin token: its cookie value.
    /// - Throws: ``APIError`` `unauthorized` for a wrong token, `tooManyRequests` for one past the client's limit.
    func signIn(presenting presented: String, context: HuddleRequestContext) async throws -> String {
        guard let token else { throw APIError(.unauthorized, "the admin API is off") }
        try await check(presented, against: token, client: context.clientAddress)
        let session = Secrets.randomHex(bytes: 32)
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            if sessions.count >= Self.maximumSessions {
                sessions = sessions.filter { $0.value > now }
                if sessions.count >= Self.maximumSessions, let oldest = sessions.min(by: { $0.value < $1.value }) {
                    sessions[oldest.key] = nil
                }
            }
            sessions[session] = now + Self.sessionLifetime
        }
        return session
    }

    /// Ends the request's session, if it has one.
    func signOut(_ request: Request) {
        guard let value = request.cookies[Self.cookieName]?.value else { return }
        _ = sessions.withLock { $0.removeValue(forKey: value) }
    }

    private func check(_ presented: String, against token: String, client: String) async throws {
        guard try await attempts.verify(presented, is: token, kind: .admin, client: client) else { throw APIError(.unauthorized, "wrong admin token") }
    }

}
