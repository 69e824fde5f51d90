import HuddleAPNs
import NIOCore
import Synchronization

/// The authentication state of each open provider connection, forgotten when the connection closes.
final class ProviderConnections: Sendable {
    private let states = Mutex<[ObjectIdentifier: ProviderConnectionState]>([:])

    func state(of connection: ObjectIdentifier, closed: EventLoopFuture<Void>) -> ProviderConnectionState {
        states.withLock { states in
            if let state = states[connection] { return state }
            states[connection] = ProviderConnectionState()
            closed.whenComplete { [weak self] _ in self?.forget(connection) }
            return ProviderConnectionState()
        }
    }

    func update(_ connection: ObjectIdentifier, to state: ProviderConnectionState) {
        states.withLock { states in
            // A connection that closed meanwhile stays forgotten.
            if states[connection] != nil { states[connection] = state }
        }
    }

    func forget(_ connection: ObjectIdentifier) {
        _ = states.withLock { $0.removeValue(forKey: connection) }
    }

    var count: Int { states.withLock { $0.count } }
}
