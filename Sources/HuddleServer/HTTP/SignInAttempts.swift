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
    ///
    /// The attempt is counted before the comparison and given back when the token was right, in one step
    /// under the lock: requests sent at once cannot all pass the check before any of them is counted.
    /// - Throws: ``APIError`` `tooManyRequests` while `client` is held back, before anything is compared.
    func verify(_ presented: String?, is token: String, kind: Token, client: String) throws -> Bool {
        guard let presented else { return false }
        let counted = try take("\(kind.rawValue) \(client)")
        guard Secrets.constantTimeEqual(Secrets.hash(presented), Secrets.hash(token)) else { return false }
        giveBack(counted)
        return true
    }

    /// Counts an attempt of `client` (or, when the table is full of live windows, of every new address
    /// together), unless its window holds ``maximumFailures`` already.
    /// - Returns: the key the attempt was counted under.
    /// - Throws: ``APIError`` `tooManyRequests`, with the seconds to wait, while `client` is held back.
    private func take(_ client: String) throws -> String {
        let now = ContinuousClock.now
        let outcome: (key: String?, wait: Duration) = failures.withLock { failures in
            var key = client
            if failures[key] == nil, failures.count >= Self.maximumClients {
                failures = failures.filter { $0.value.windowEnds > now }
                if failures.count >= Self.maximumClients { key = Self.overflow }
            }
            guard let entry = failures[key], entry.windowEnds > now else {
                failures[key] = Failures(count: 1, windowEnds: now + Self.window)
                return (key, .zero)
            }
            guard entry.count < Self.maximumFailures else { return (nil, entry.windowEnds - now) }
            failures[key]!.count += 1
            return (key, .zero)
        }
        guard let key = outcome.key else {
            let seconds = max(1, Int(outcome.wait.components.seconds) + 1)
            throw APIError(.tooManyRequests, "too many wrong tokens from this address: try again in \(seconds) s", retryAfter: seconds)
        }
        return key
    }

    /// Takes back an attempt that turned out right.
    private func giveBack(_ key: String) {
        failures.withLock { failures in
            guard let entry = failures[key] else { return }
            if entry.count <= 1 { failures[key] = nil } else { failures[key]!.count -= 1 }
        }
    }
}
