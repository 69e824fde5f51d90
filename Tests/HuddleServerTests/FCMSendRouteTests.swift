import HTTPTypes
@testable import HuddleServer
import Testing

/// Which requests the port's transport answers as FCM sends itself (``FCMEndpoint/sendProject(method:path:)``): a plain
/// `POST /v1/projects/{project}/messages:send`; anything else goes to the router, which answers it as FCM does.
@Suite struct FCMSendRouteTests {
    @Test func aPlainSendNamesItsProject() {
        #expect(FCMEndpoint.sendProject(method: .post, path: "/v1/projects/demo-1/messages:send") == "demo-1")
        #expect(FCMEndpoint.sendProject(method: .post, path: "/v1/projects/a.b_c/messages:send") == "a.b_c")
    }

    @Test(arguments: [
        "/v1/projects//messages:send", "/v1/projects/messages:send", "/v1/projects/a%2Fb/messages:send", "/v1/projects/a/b/messages:send",
        "/v1/projects/demo/messages:sendx", "/v1/projects/demo/messages", "/v2/projects/demo/messages:send",
        "/v1/projects/" + String(repeating: "p", count: 101) + "/messages:send", "/v1/projects/dé/messages:send",
    ])
    func anyOtherPathGoesToTheRouter(path: String) {
        #expect(FCMEndpoint.sendProject(method: .post, path: path) == nil)
    }

    @Test func onlyAPostIsASend() {
        #expect(FCMEndpoint.sendProject(method: .get, path: "/v1/projects/demo/messages:send") == nil)
    }
}
