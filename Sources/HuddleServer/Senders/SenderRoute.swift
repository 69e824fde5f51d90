import HTTPTypes
import Logging

/// A sender's message route that the port's transport answers itself, on the connection's event loop, without
/// Hummingbird's router (``SenderRoutes``). Each sender registers its own in `Application+Huddle.swift` (FCM's
/// `messages:send`, Web Push's endpoints); the transport knows none of them by name. APNs' provider API is the
/// transport's own first route: its answers reach into the stream they came on (a fault's reset, a GOAWAY).
protocol SenderRoute: Sendable {
    /// Whether the transport answers `method` to `path` (its query removed) through this route; any other request goes
    /// on to the router, which answers it through the same endpoint.
    func takes(method: HTTPRequest.Method, path: String) -> Bool
    /// The most body bytes kept for one message: a longer body comes as ``SenderRequestBody/collected(_:)`` of `nil`,
    /// refused in the sender's words.
    var longestBody: Int { get }
    func answer(_ message: SenderMessage) async -> SenderAnswer
}

/// A sender's message as the transport read it, body included.
struct SenderMessage: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var headers: HTTPFields
    var authority: String?
    var body: SenderRequestBody
    /// The connection's client (`address:port`).
    var client: String?
    var isHTTP2: Bool
    var logger: Logger
}
