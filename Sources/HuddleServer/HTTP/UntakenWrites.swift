import NIOCore

/// The writes of an answer handed to a channel and not yet taken by its client: written to the socket, past
/// HTTP/2's flow control, which is when NIO completes a write's promise. Promises of one channel complete in
/// the order of their writes, so the oldest one waiting is the first.
///
/// A client that never lets HTTP/2's window open leaves its answers here; the write deadline (``StreamLifetime``)
/// resets a stream whose oldest write waited too long.
struct UntakenWrites {
    private var issued = CircularBuffer<NIODeadline>()
    /// The bytes of the writes waiting.
    private(set) var bytes = 0

    var isEmpty: Bool { issued.isEmpty }

    /// When the longest-waiting write was handed to the channel.
    var oldest: NIODeadline? { issued.first }

    mutating func add(bytes: Int, at time: NIODeadline) {
        issued.append(time)
        self.bytes += bytes
    }

    /// The oldest write was taken (or failed: the channel closed).
    mutating func take(bytes: Int) {
        _ = issued.popFirst()
        self.bytes -= bytes
    }

    /// Whether the oldest write has waited `timeout` by `now`.
    func hasWaited(_ timeout: TimeAmount, at now: NIODeadline) -> Bool {
        oldest.map { $0 + timeout <= now } ?? false
    }
}
