import Foundation
import HuddleCore
import Synchronization

/// The provider signing keys that pushes were checked with (and the service accounts FCM sends were), held for a
/// moment so that a push on a busy connection does not read the store.
///
/// A key removed or replaced through this server's admin API is dropped at once, so the next push on
/// every connection that used it is checked against the store again. Changes made elsewhere (another
/// server sharing the store, `huddle keys` on the same file) are seen within ``lifetime``.
typealias SigningKeyCache = StoreRecordCache<SigningKeyRecord>
typealias ServiceAccountCache = StoreRecordCache<ServiceAccountRecord>

extension StoreRecordCache<SigningKeyRecord> {
    convenience init(store: any NotificationStore, lifetime: Duration = .seconds(1)) {
        self.init(lifetime: lifetime) { try await store.signingKey(id: $0) }
    }

    func key(id: String) async throws -> SigningKeyRecord? { try await record(id: id) }
}

extension StoreRecordCache<ServiceAccountRecord> {
    convenience init(store: any NotificationStore, lifetime: Duration = .seconds(1)) {
        self.init(lifetime: lifetime) { try await store.serviceAccount(keyID: $0) }
    }
}

/// Records read from the store by their id, each trusted for ``lifetime``.
final class StoreRecordCache<Record: Sendable>: Sendable {
    private struct Entry {
        var record: Record
        var readAt: ContinuousClock.Instant
    }

    /// How long a key read from the store is trusted without reading it again.
    let lifetime: Duration
    /// The most keys held; a store holds a few, and keys that do not exist are never held.
    private let capacity = 1_000
    private let read: @Sendable (String) async throws -> Record?
    private let state = Mutex(State())

    private struct State {
        var entries: [String: Entry] = [:]
        /// Counts ``forget(id:)`` calls: a read from the store that began before one may have read the key
        /// as it was before it was removed, and must not put it back.
        var forgets: UInt64 = 0
    }

    init(lifetime: Duration, read: @escaping @Sendable (String) async throws -> Record?) {
        self.lifetime = lifetime
        self.read = read
    }

    /// The record with this identifier as the store has it (at most ``lifetime`` ago), or `nil`.
    func record(id: String) async throws -> Record? {
        let now = ContinuousClock.now
        let (cached, forgets) = state.withLock { ($0.entries[id], $0.forgets) }
        if let cached, now - cached.readAt < lifetime { return cached.record }
        let record = try await read(id)
        state.withLock { state in
            guard let record, state.forgets == forgets else {
                state.entries[id] = nil
                return
            }
            if state.entries.count >= capacity, state.entries[id] == nil { state.entries.removeAll(keepingCapacity: true) }
            state.entries[id] = Entry(record: record, readAt: now)
        }
        return record
    }

    /// Forgets a record that was removed or replaced, so that no connection goes on using the old one.
    func forget(id: String) {
        state.withLock { state in
            state.entries[id] = nil
            state.forgets += 1
        }
    }
}
