import Foundation
import HuddleAPNs
import HuddleCore
import NIOCore
import Synchronization

/// The authentication state of each open provider connection, forgotten when the connection closes.
final class ProviderConnections: Sendable {
    private let states = Mutex<[ObjectIdentifier: ProviderConnectionState]>([:])

    /// The connection's state as it is now, registering a new connection.
    func state(of connection: ObjectIdentifier, closed: EventLoopFuture<Void>) -> ProviderConnectionState {
        let (state, isNew) = states.withLock { states in
            if let state = states[connection] { return (state, false) }
            states[connection] = ProviderConnectionState()
            return (ProviderConnectionState(), true)
        }
        // Outside the lock: on the connection's event loop, a connection that has closed already runs the
        // callback at once, and `forget` takes the lock.
        if isNew { closed.whenComplete { [weak self] _ in self?.forget(connection) } }
        return state
    }

    /// Admits a verified token on a connection, atomically: the connection's rules are checked against its
    /// state as it is at this moment, not as it was when the token's verification began, so concurrent
    /// streams of one connection cannot both bind it (to two teams, or to two new tokens).
    func admit(
        _ token: ProviderToken, key: SigningKeyRecord, bundleIdentifier: String, now: Date, on connection: ObjectIdentifier
    ) throws(APNsReason) {
        try states.withLock { states throws(APNsReason) in
            var state = states[connection] ?? ProviderConnectionState()
            try state.admit(token, key: key, bundleIdentifier: bundleIdentifier, now: now)
            // A connection that closed meanwhile stays forgotten.
            if states[connection] != nil { states[connection] = state }
        }
    }

    /// The token the connection last had admitted, if any.
    func token(of connection: ObjectIdentifier) -> ProviderToken? {
        states.withLock { $0[connection]?.token }
    }

    func forget(_ connection: ObjectIdentifier) {
        _ = states.withLock { $0.removeValue(forKey: connection) }
    }

    var count: Int { states.withLock { $0.count } }
}
