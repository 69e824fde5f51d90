import Foundation
import HuddleCore
import Synchronization

/// The provider signing keys that pushes were checked with, held for a moment so that a push on a busy
/// connection does not read the store.
///
/// A key removed or replaced through this server's admin API is dropped at once, so the next push on
/// every connection that used it is checked against the store again. Changes made elsewhere (another
/// server sharing the store, `huddle keys` on the same file) are seen within ``lifetime``.
final class SigningKeyCache: Sendable {
    private struct Entry {
        var key: SigningKeyRecord
        var readAt: ContinuousClock.Instant
    }

    /// How long a key read from the store is trusted without reading it again.
    let lifetime: Duration
    /// The most keys held; a store holds a few, and keys that do not exist are never held.
    private let capacity = 1_000
    private let store: any NotificationStore
    private let state = Mutex(State())

    private struct State {
        var entries: [String: Entry] = [:]
        /// Counts ``forget(id:)`` calls: a read from the store that began before one may have read the key
        /// as it was before it was removed, and must not put it back.
        var forgets: UInt64 = 0
    }

    init(store: any NotificationStore, lifetime: Duration = .seconds(1)) {
        self.store = store
        self.lifetime = lifetime
    }

    /// The key with this identifier as the store has it (at most ``lifetime`` ago), or `nil`.
    func key(id: String) async throws -> SigningKeyRecord? {
        let now = ContinuousClock.now
        let (cached, forgets) = state.withLock { ($0.entries[id], $0.forgets) }
        if let cached, now - cached.readAt < lifetime { return cached.key }
        let key = try await store.signingKey(id: id)
        state.withLock { state in
            guard let key, state.forgets == forgets else {
                state.entries[id] = nil
                return
            }
            if state.entries.count >= capacity, state.entries[id] == nil { state.entries.removeAll(keepingCapacity: true) }
            state.entries[id] = Entry(key: key, readAt: now)
        }
        return key
    }

    /// Forgets a key that was removed or replaced, so that no connection goes on using the old one.
    func forget(id: String) {
        state.withLock { state in
            state.entries[id] = nil
            state.forgets += 1
        }
    }
}
