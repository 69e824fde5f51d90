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

extension TokenPlaces {
    /// What a token seen before names now, read from its device's session in memory (`read` gives `nil` when the app
    /// no longer has it); `nil` for a token not seen, or whose device or app went: the caller reads the store then.
    func remembered<Value>(
        _ token: String, in centers: DeviceCenters, _ read: (DeviceSession, _ app: String) -> Value?
    ) async throws -> (session: DeviceSession, app: String, value: Value)? {
        guard let known = place(of: token), let session = try await centers.session(for: known.device), let value = read(session, known.app)
        else { return nil }
        return (session, known.app, value)
    }
}
