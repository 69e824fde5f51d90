import HTTPTypes
import HuddleWebPush

/// A push to an endpoint (`POST /web-push/…`), which the port's transport answers as it answers APNs pushes; any other
/// method goes through the router, which answers it through the same endpoint (405 in the service's words).
extension WebPushEndpoint: SenderRoute {
    func takes(method: HTTPRequest.Method, path: String) -> Bool {
        method == .post && WebPushService.isServicePath(Substring(path))
    }

    var longestBody: Int { WebPushService.maximumBodySize }

    func answer(_ message: SenderMessage) async -> SenderAnswer {
        await push(
            method: message.method.rawValue, path: message.path, headers: message.headers, authority: message.authority, body: message.body,
            client: message.client, isHTTP2: message.isHTTP2)
    }
}
