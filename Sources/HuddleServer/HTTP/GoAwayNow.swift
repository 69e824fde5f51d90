import NIOCore

/// Sent up an HTTP/2 connection's pipeline by whoever answers a request there (a fault's `goaway`): go away at once,
/// naming the reason in the GOAWAY's debug data. The connection's manager (``HTTP2ConnectionManager``) sends it.
struct GoAwayNow: Sendable {
    var debugData: ByteBuffer
}
