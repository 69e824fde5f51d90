import HTTPTypes
import HuddleFCM

/// FCM's plain `POST /v1/projects/{project}/messages:send`, which the port's transport answers as it answers pushes
/// (``SenderRoute``); every other FCM route (an escaped path, topic subscriptions) goes through the router.
struct FCMSendRoute: SenderRoute {
    let endpoint: FCMEndpoint

    func takes(method: HTTPRequest.Method, path: String) -> Bool {
        FCMEndpoint.sendProject(method: method, path: path) != nil
    }

    var longestBody: Int { FCMSendRequest.maximumBodySize }

    func answer(_ message: SenderMessage) async -> SenderAnswer {
        // Taken by `takes`, so the project is there.
        let project = FCMEndpoint.sendProject(method: message.method, path: message.path) ?? ""
        return await endpoint.send(
            project: project, method: message.method.rawValue, path: message.path, headers: message.headers, authority: message.authority,
            body: message.body, client: message.client, isHTTP2: message.isHTTP2, logger: message.logger)
    }
}
