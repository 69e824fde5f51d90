import Synchronization

/// Wrong tokens per client address, for every token the server checks (admin, registration, metrics, each
/// counted apart): past ``maximumFailures`` in ``window``, the address is refused that token (even the right
/// one) until the window that began with its first failure is over.
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

    /// The tokens counted apart: guesses at one do not hold back the others.
    enum Token: String, Sendable {
        case admin, registration, metrics
    }

    /// Whether `presented` is the `kind` token `token`, compared in constant time (through hashes of equal
    /// length, so that neither the contents nor the length of the token leak through timing). A wrong one
    /// counts against `client` for that kind; none presented (a client that did not know it needed one) is
    /// no guess, and does not count.
    /// - Throws: ``APIError`` `tooManyRequests` while `client` is held back, before anything is compared.
    func verify(_ presented: String?, is token: String, kind: Token, client: String) throws -> Bool {
        guard let presented else { return false }
        let key = "\(kind.rawValue) \(client)"
        try admit(key)
        guard Secrets.constantTimeEqual(Secrets.hash(presented), Secrets.hash(token)) else {
            recordFailure(key)
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
