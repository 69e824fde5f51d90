import Synchronization

/// The live streams open on a server, by device, refusing new ones past the limits: each stream holds
/// a connection, a buffer and a rendering per change, so their number is what bounds that work.
final class StreamSlots: Sendable {
    /// One open stream's place, given back when the stream's response is done with it (or never started).
    final class Slot: Sendable {
        private let slots: StreamSlots
        private let device: String

        fileprivate init(slots: StreamSlots, device: String) {
            self.slots = slots
            self.device = device
        }

        deinit { slots.release(device: device) }
    }

    private struct Counts {
        var total = 0
        var byDevice: [String: Int] = [:]
    }

    let maximumPerDevice: Int
    let maximum: Int
    private let counts = Mutex(Counts())

    init(maximumPerDevice: Int, maximum: Int) {
        self.maximumPerDevice = maximumPerDevice
        self.maximum = maximum
    }

    /// Takes a place for a new stream of a device; hold the slot for as long as the stream is open.
    /// - Throws: ``APIError`` naming the limit that is full.
    func open(device: String) throws(APIError) -> Slot {
        try counts.withLock { counts throws(APIError) in
            let open = counts.byDevice[device, default: 0]
            guard open < maximumPerDevice else {
                throw APIError(
                    .tooManyRequests,
                    "the device has \(open) live streams open, the most allowed (--max-streams-per-device); close one first")
            }
            guard counts.total < maximum else {
                throw APIError(.serviceUnavailable, "the server has \(counts.total) live streams open, the most allowed (--max-streams)")
            }
            counts.byDevice[device] = open + 1
            counts.total += 1
        }
        return Slot(slots: self, device: device)
    }

    fileprivate func release(device: String) {
        counts.withLock { counts in
            counts.total -= 1
            let open = counts.byDevice[device, default: 1] - 1
            counts.byDevice[device] = open > 0 ? open : nil
        }
    }
}
