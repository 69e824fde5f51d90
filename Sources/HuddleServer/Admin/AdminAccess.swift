import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Who is the admin, in one place: the admin API takes the token as a bearer token, the pages (and the
/// inspector's requests from them) a session cookie that signing in with the token opened.
///
/// A session is a random value this server keeps, not derived from the token: it tells nothing about the
/// token, expires, and ends at sign-out. Wrong tokens are counted per client address, so that a token
/// cannot be guessed at the speed of the network.
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
    /// - Throws: ``APIError`` `unauthorized`, or `tooManyRequests` for an address that gave wrong tokens too often.
    func authorize(_ request: Request, context: HuddleRequestContext, acceptingCookie: Bool) throws {
        guard let token else {
            throw APIError(.unauthorized, "the admin API is off: start huddle serve with --admin-token or HUDDLE_ADMIN_TOKEN")
        }
        if let presented = DeviceAuthorization.bearer(request) {
            try check(presented, against: token, client: context.clientAddress)
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
    /// - Throws: ``APIError`` `unauthorized` for a wrong token, `tooManyRequests` when the address is held back.
    func signIn(presenting presented: String, context: HuddleRequestContext) throws -> String {
        guard let token else { throw APIError(.unauthorized, "the admin API is off") }
        try check(presented, against: token, client: context.clientAddress)
        let session = DeviceAuthorization.randomHex(bytes: 32)
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

    private func check(_ presented: String, against token: String, client: String) throws {
        guard try attempts.verify(presented, is: token, client: client) else { throw APIError(.unauthorized, "wrong admin token") }
    }

}

/// Wrong tokens per client address, for every token the server checks (admin, registration, metrics):
/// past ``maximumFailures`` in ``window``, the address is refused (even with the right token) until the
/// window that began with its first failure is over.
final class SignInAttempts: Sendable {
    static let maximumFailures = 10
    static let window: Duration = .seconds(60)
    /// Addresses tracked at once. Past that (a flood of addresses), the ones whose window is over are
    /// forgotten, and new ones share one count (``overflow``), so that fresh addresses buy no fresh guesses.
    static let maximumClients = 10_000
    static let overflow = "(addresses past the table)"

    private struct Failures {
        var count: Int
        var windowEnds: ContinuousClock.Instant
    }

    private let failures = Mutex<[String: Failures]>([:])

    init() {}

    /// Whether `presented` is `token`, compared in constant time (through hashes of equal length, so that
    /// neither the contents nor the length of the token leak through timing); a wrong one counts against
    /// `client`.
    /// - Throws: ``APIError`` `tooManyRequests` while `client` is held back, before anything is compared.
    func verify(_ presented: String, is token: String, client: String) throws -> Bool {
        try admit(client)
        guard DeviceAuthorization.constantTimeEqual(DeviceAuthorization.hash(presented), DeviceAuthorization.hash(token)) else {
            recordFailure(client)
            return false
        }
        return true
    }

    /// - Throws: ``APIError`` `tooManyRequests`, with the seconds to wait, while `client` is held back.
    func admit(_ client: String) throws {
        let now = ContinuousClock.now
        let wait: Duration? = failures.withLock { failures in
            guard let entry = failures[client] ?? failures[Self.overflow] else { return nil }
            guard entry.windowEnds > now else {
                failures[failures[client] == nil ? Self.overflow : client] = nil
                return nil
            }
            return entry.count >= Self.maximumFailures ? entry.windowEnds - now : nil
        }
        if let wait {
            let seconds = max(1, Int(wait.components.seconds) + 1)
            throw APIError(.tooManyRequests, "too many wrong tokens from this address: try again in \(seconds) s", retryAfter: seconds)
        }
    }

    func recordFailure(_ client: String) {
        let now = ContinuousClock.now
        failures.withLock { failures in
            var key = client
            if failures[key] == nil, failures.count >= Self.maximumClients {
                failures = failures.filter { $0.value.windowEnds > now }
                if failures.count >= Self.maximumClients { key = Self.overflow }
            }
            if let entry = failures[key], entry.windowEnds > now {
                failures[key]!.count = entry.count + 1
            } else {
                failures[key] = Failures(count: 1, windowEnds: now + Self.window)
            }
        }
    }
}
