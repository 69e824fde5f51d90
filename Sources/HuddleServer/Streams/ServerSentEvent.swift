import NIOCore

/// How every live stream of the server frames what it writes (`text/event-stream`): events with an id and
/// a name, heartbeat comments, and the reconnection delay. The one place that knows the format.
///
/// Data is JSON text on one line (Huddle's JSON writer escapes line breaks), so one `data:` line carries
/// it; ``event(id:name:data:)`` splits any line breaks into `data:` lines all the same, so that nothing
/// given to it can end an event early or start a field of its own.
enum ServerSentEvent {
    /// A comment that keeps proxies and clients from taking a quiet stream for a dead one.
    static let heartbeat = ByteBuffer(string: ": heartbeat\n\n")
    /// What a stream begins with: how soon its client reconnects after the server restarts.
    static let reconnectQuickly = ByteBuffer(string: "retry: 1000\n\n")

    /// An event; without `id`, one that a client resuming later does not count.
    static func event(id: UInt64? = nil, name: String, data: String) -> String {
        var text = ""
        if let id { text += "id: \(id)\n" }
        text += "event: \(name)\n"
        // By bytes: CR, LF and CR LF all end a line in this format, and "\r\n" is one Character in Swift.
        for line in data.utf8.split(omittingEmptySubsequences: false, whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            text += "data: \(String(decoding: line, as: UTF8.self))\n"
        }
        return text + "\n"
    }

    /// An event whose data (JSON text on one line) is written after this head, then ``end``: for data
    /// that is already in a buffer and is not copied into a string.
    static func head(id: UInt64, name: String) -> String {
        "id: \(id)\nevent: \(name)\ndata: "
    }

    /// What ends an event begun with ``head(id:name:)``.
    static let end = "\n\n"
}
