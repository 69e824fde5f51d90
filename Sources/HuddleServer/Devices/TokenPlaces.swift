import Synchronization

/// Where tokens a sender names were installed (device, app), bounded: an FCM registration token or a web push
/// subscription's endpoint ID is given to one app once and never moves, so what is remembered stays true; a token whose
/// app went (or was given a new one) is found gone through the device's session.
final class TokenPlaces: Sendable {
    let capacity: Int
    private let places = Mutex<[String: (device: String, app: String)]>([:])

    init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    func place(of token: String) -> (device: String, app: String)? {
        places.withLock { $0[token] }
    }

    func remember(_ token: String, device: String, app: String) {
        places.withLock { places in
            if places.count >= capacity, places[token] == nil { places.removeAll(keepingCapacity: true) }
            places[token] = (device, app)
        }
    }
}
