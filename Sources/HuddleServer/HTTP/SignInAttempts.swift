import Foundation
import Synchronization

/// Wrong tokens, for every token the server checks (admin, registration, metrics, each counted apart), by client.
///
/// The right token always gets in: it is compared first, whatever the client's address sent before, so that no
/// one can lock the admin out by guessing, not even a process on the same machine, whose address every local
/// client shares. Guessing stays slow another way: past ``maximumFailures`` wrong tokens of a client in
/// ``window``, each wrong one is answered only after ``pause`` (429, with `Retry-After`). A guesser in turn waits
/// that long per guess; one that guesses in parallel holds a connection per guess, and connections are bounded
/// (`--max-connections`). So what protects a token from a determined guesser is its length: the tokens Huddle
/// makes have 128 random bits, and one chosen by hand should have as many (README, "Tokens").
///
/// A client is its address, with the whole loopback range as one (127.0.0.2 is the same machine as 127.0.0.1,
/// and buys no fresh guesses) and an IPv6 address by its /64, which one host may fill at will.
final class SignInAttempts: Sendable {
    static let maximumFailures = 10
    static let window: Duration = .seconds(60)
    /// Clients tracked at once. Past that (a flood of addresses), the ones whose window is over are forgotten,
    /// and new ones share one count (``overflow``), so that fresh addresses buy no fresh guesses.
    static let maximumClients = 10_000
    static let overflow = "(addresses past the table)"

    private struct Failures {
        var count: Int
        var windowEnds: ContinuousClock.Instant
    }

    /// How long a wrong token past the limit waits for its answer.
    let pause: Duration
    private let failures = Mutex<[String: Failures]>([:])

    init(pause: Duration = .seconds(1)) {
        self.pause = pause
    }

    /// The tokens counted apart: guesses at one do not hold back the others.
    enum Token: String, Sendable {
        case admin, registration, metrics
    }

    /// Whether `presented` is the `kind` token `token`, compared in constant time (through hashes of equal
    /// length, so that neither the contents nor the length of the token leak through timing). A wrong one
    /// counts against `client` for that kind; none presented (a client that did not know it needed one) is
    /// no guess, and does not count.
    ///
    /// A wrong token is counted and judged against the limit in one step under the lock: guesses sent at once
    /// cannot all pass as the first ten.
    /// - Throws: ``APIError`` `tooManyRequests`, after ``pause``, for a wrong token past the limit.
    func verify(_ presented: String?, is token: String, kind: Token, client: String) async throws -> Bool {
        guard let presented else { return false }
        guard !Secrets.constantTimeEqual(Secrets.hash(presented), Secrets.hash(token)) else { return true }
        guard !countFailure(of: "\(kind.rawValue) \(Self.clientKey(client))") else { return false }
        try? await Task.sleep(for: pause)
        let seconds = max(1, Int(pause.components.seconds))
        throw APIError(
            .tooManyRequests,
            "wrong \(kind.rawValue) token, one of too many from this address: each is now answered after a pause", retryAfter: seconds)
    }

    /// Counts a wrong token of `client` (or, when the table is full of live windows, of every new client together).
    /// - Returns: whether it is within the limit.
    private func countFailure(of client: String) -> Bool {
        let now = ContinuousClock.now
        return failures.withLock { failures in
            var key = client
            if failures[key] == nil, failures.count >= Self.maximumClients {
                failures = failures.filter { $0.value.windowEnds > now }
                if failures.count >= Self.maximumClients { key = Self.overflow }
            }
            guard let entry = failures[key], entry.windowEnds > now else {
                failures[key] = Failures(count: 1, windowEnds: now + Self.window)
                return true
            }
            failures[key]!.count += 1
            return entry.count < Self.maximumFailures
        }
    }

    /// Who an address counts as: `loopback` for the whole loopback range (127.0.0.0/8, ::1, and IPv4-mapped
    /// loopback), an IPv6 address's first 64 bits, else the address as given.
    static func clientKey(_ address: String) -> String {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            return address.hasPrefix("127.") ? "loopback" : address
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, address, &ipv6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        let isLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let isMappedLoopback = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
        if isLoopback || isMappedLoopback { return "loopback" }
        return "ipv6 " + bytes[0..<8].map { String(format: "%02x", $0) }.joined() + "/64"
    }
}
