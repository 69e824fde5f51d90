public import Foundation
public import HuddleCore
import Synchronization

/// Provider tokens whose signatures were verified, and with which key, shared by every connection of a
/// server: APNs clients present one token for up to an hour, on many connections, so its ES256 signature
/// is checked once and later pushes with it cost a lookup.
///
/// Only the signature is remembered. Every other rule is checked on each push as before: the key must still
/// be registered as it was (a key removed or replaced makes the remembered answer void), and expiry, the
/// team and the connection's rules do not depend on the signature.
///
/// Signatures a key refused are remembered too, so that a client repeating one badly signed token is refused
/// by a lookup instead of an ES256 check per push (on its connection's event loop). That answer is exact: a
/// signature matches a key or never does.
public final class VerifiedSignatures: Sendable {
    private struct Entry {
        var key: SigningKeyRecord
        var issuedAt: Date
    }

    /// The most tokens remembered; past it, expired ones are dropped, and all if none has expired. As many
    /// refused ones again; past that, all of them go.
    public let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])
    /// Each refused token's text, with the key that refused it.
    private let refusals = Mutex<[String: SigningKeyRecord]>([:])

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Whether `token`'s signature was verified with `key`, as that key is registered now.
    public func contains(_ token: ProviderToken, verifiedWith key: SigningKeyRecord) -> Bool {
        entries.withLock { $0[token.text]?.key == key }
    }

    /// Remembers that `key` verified `token`'s signature.
    public func insert(_ token: ProviderToken, verifiedWith key: SigningKeyRecord, now: Date) {
        entries.withLock { entries in
            if entries.count >= capacity, entries[token.text] == nil {
                entries = entries.filter { now.timeIntervalSince($0.value.issuedAt) <= ProviderAuthentication.tokenLifetime }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token.text] = Entry(key: key, issuedAt: token.issuedAt)
        }
    }

    /// How many tokens are remembered as verified.
    public var count: Int { entries.withLock { $0.count } }

    /// Whether `key`, as it is registered now, refused `token`'s signature.
    public func refuses(_ token: ProviderToken, with key: SigningKeyRecord) -> Bool {
        refusals.withLock { $0[token.text] == key }
    }

    /// The longest refused token remembered, in bytes. Anyone who knows a key's identifier and team can make
    /// refused tokens, as long as a request's headers allow; the ones APNs clients make are about 200 bytes.
    /// A longer one is checked each time, so the table stays within `capacity` × this.
    public static let longestRefusalRemembered = 1024

    /// Remembers that `key` refused `token`'s signature, unless the token is longer than
    /// ``longestRefusalRemembered``.
    public func insertRefusal(_ token: ProviderToken, by key: SigningKeyRecord) {
        guard token.text.utf8.count <= Self.longestRefusalRemembered else { return }
        refusals.withLock { refusals in
            if refusals.count >= capacity, refusals[token.text] == nil { refusals.removeAll(keepingCapacity: true) }
            refusals[token.text] = key
        }
    }

    /// How many tokens are remembered as refused.
    public var refusedCount: Int { refusals.withLock { $0.count } }
}
