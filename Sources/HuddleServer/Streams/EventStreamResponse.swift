import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import ServiceLifecycle
import Synchronization

/// A `text/event-stream` response, for every live stream of the server (center, group and request-inspector
/// streams): it writes what its events give until they end or the client goes away, holding the stream's
/// slot and subscription until the response is done with (written to the end, or dropped unwritten).
///
/// A client that stops reading would leave a write waiting forever, and its slot taken: the write deadline that
/// every answer has (`--write-timeout`: ``StreamLifetime``, ``HTTP1RequestLifetime``) resets its stream or
/// closes its connection, which ends the write.
enum EventStreamResponse {
    /// The shortest time between two writes to one stream: under a burst, 10 updates a second, which is
    /// as often as a person can follow a list of notifications changing; a quiet stream's event still goes
    /// at once. Each write wakes the server and the client once, whatever it carries: with 200 viewers of a
    /// device under a burst of pushes, 100 ms instead of 50 ms cut the whole machine's CPU for the burst by
    /// a tenth and raised the push rate from 40-42% to 43-45% of the rate with no viewer (50 ms instead of
    /// 20 ms had cut the clients' CPU by a quarter).
    static let minimumWriteInterval = Duration.milliseconds(100)
    /// The ticks every stream's writes wait for.
    private static let pacing = PacingClock(interval: minimumWriteInterval)

    /// - Parameter events: each element is what to write at once: whatever waited, in one buffer.
    /// Where a reconnecting client resumes: the number of the last event it has, from `Last-Event-ID`
    /// (which `EventSource` sends on its own), else from the `after` query parameter; `nil` for neither.
    /// - Throws: ``APIError`` `badRequest` for a value that is not a number.
    static func resumePoint(_ request: Request) throws -> UInt64? {
        guard let text = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters["after"].map(String.init),
            !text.isEmpty
        else { return nil }
        guard let number = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
            throw APIError(.badRequest, "Last-Event-ID: expected an event number, found \"\(text.prefix(40))\"")
        }
        return number
    }

    /// - Parameter end: ends `events` (they finish once it is called), which a server shutting down calls: an open
    ///   stream, or one whose client left unseen, would otherwise hold the shutdown up to its limit, since the server
    ///   waits for its connections before the services that could end them hear of it.
    static func make(
        holding resources: some Sendable, events: some AsyncSequence<ByteBuffer, Never> & Sendable, end: @escaping @Sendable () -> Void
    ) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                defer { withExtendedLifetime(resources) {} }
                try await writer.write(ServerSentEvent.reconnectQuickly)
                try await withGracefulShutdownHandler {
                    for await buffer in events {
                        try await writer.write(buffer)
                        // The next write waits for the next tick, gathering what arrives meanwhile: under a burst
                        // each stream writes (and its client wakes) at most 1 / interval times a second, and a quiet
                        // stream's next event still goes at once.
                        await pacing.nextTick()
                    }
                } onGracefulShutdown: {
                    end()
                }
                try await writer.finish(nil)
            })
    }
}
