import Foundation
import HuddleAPNs
import Testing

/// The checks that need nothing but the request. Paths, topics and the authorization header are read byte by
/// byte; these pin what is found, edge cases included.
@Suite struct ProviderRequestCheckTests {
    static func check(_ headers: [(String, String)], method: String = "POST", path: String = "/3/device/\(String(repeating: "ab", count: 32))") -> Result<ProviderPush, APNsReason> {
        ProviderRequestCheck.check(ProviderRequest(method: method, path: path, headers: headers.map { (name: $0.0, value: $0.1) }), now: Date()).result
    }

    @Test func aValidPush() throws {
        let push = try Self.check([("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip"), ("apns-id", "6E2B0C0A-6F7C-4B59-9E1F-1D3C5B1A2B3C"), ("apns-priority", "5"), ("apns-collapse-id", "c"), ("authorization", "bearer x.y.z")]).get()
        #expect(push.bundleIdentifier == "com.example.app")
        #expect(push.apnsID == "6e2b0c0a-6f7c-4b59-9e1f-1d3c5b1a2b3c")
        #expect(push.priority == 5 && push.collapseID == "c" && push.providerToken == "x.y.z" && push.pushType == .voip)
    }

    @Test func aPushWithoutAnAPNsIDGetsATimeOrderedOneOfTheServersTime() throws {
        // A version 7 UUID of the time given (the server's clock), whose growing time keeps a push's key at the
        // end of the store's index; 2025-11-26 08:00:00.123 UTC is 0x19abf2d2c7b milliseconds since 1970.
        let now = Date(timeIntervalSince1970: 1_764_144_000.123)
        let path = "/3/device/\(String(repeating: "ab", count: 32))"
        let (apnsID, result) = ProviderRequestCheck.check(
            ProviderRequest(method: "POST", path: path, headers: [(name: "apns-topic", value: "a.b")]), now: now)
        #expect(apnsID.hasPrefix("019abf2d-2c7b-7") && apnsID.count == 36, "\(apnsID)")
        #expect(try result.get().apnsID == apnsID)
        // One sent is kept as sent, lowercased.
        let sent = ProviderRequestCheck.check(
            ProviderRequest(method: "POST", path: path, headers: [(name: "apns-topic", value: "a.b"), (name: "apns-id", value: "6E2B0C0A-6F7C-4B59-9E1F-1D3C5B1A2B3C")]),
            now: now)
        #expect(sent.apnsID == "6e2b0c0a-6f7c-4b59-9e1f-1d3c5b1a2b3c")
    }

    @Test func fullWidthDigitsAreNotHexadecimal() {
        let fullWidth = "６e2b0c0a-6f7c-4b59-9e1f-1d3c5b1a2b3c"
        #expect(Self.check([("apns-topic", "a.b"), ("apns-id", fullWidth)]) == .failure(.badMessageId))
        let token = "ａｂ" + String(repeating: "ab", count: 31)
        #expect(Self.check([("apns-topic", "a.b")], path: "/3/device/\(token)") == .failure(.badDeviceToken))
    }

    @Test func checksRunInTheDocumentedOrder() {
        // A request wrong in every way is refused for the first check in apns.md's order.
        let everythingWrong: [(String, String)] = [("apns-id", "nope"), ("apns-priority", "7"), ("apns-push-type", "fax")]
        #expect(Self.check(everythingWrong, method: "GET", path: "/x") == .failure(.badMessageId))
        #expect(Self.check([("apns-priority", "7")], method: "GET", path: "/x") == .failure(.methodNotAllowed))
        #expect(Self.check([("apns-priority", "7"), ("apns-push-type", "fax")], path: "/x") == .failure(.missingTopic))
        #expect(Self.check([("apns-topic", "a.b"), ("apns-collapse-id", String(repeating: "x", count: 65)), ("apns-priority", "7")]) == .failure(.badCollapseId))
        #expect(Self.check([("apns-topic", "a.b"), ("apns-priority", "7"), ("apns-push-type", "fax")]) == .failure(.badPriority))
        #expect(Self.check([("apns-topic", "a.b"), ("apns-push-type", "fax")], path: "/x") == .failure(.invalidPushType))
        #expect(Self.check([("apns-topic", "a.b")], path: "/x") == .failure(.badPath))
    }

    static let token = String(repeating: "ab", count: 32)

    static func push(path: String = "/3/device/\(token)", _ headers: [(String, String)] = [("apns-topic", "com.example.app")]) throws -> ProviderPush {
        try check(headers, path: path).get()
    }

    @Test func theDeviceTokenIsThePathsLastPartWithoutItsQuery() throws {
        #expect(try Self.push(path: "/3/device/\(Self.token.uppercased())?x=1").deviceToken == Self.token)
        #expect(Self.check([("apns-topic", "a.b")], path: "/3/device/") == .failure(.missingDeviceToken))
        #expect(Self.check([("apns-topic", "a.b")], path: "/3/device/?\(Self.token)") == .failure(.missingDeviceToken))
        #expect(Self.check([("apns-topic", "a.b")], path: "/3/devices/\(Self.token)") == .failure(.badPath))
        #expect(Self.check([("apns-topic", "a.b")], path: "/3/device/\(Self.token)/x") == .failure(.badPath))
        // A query begins at the `?` byte, whatever follows it (a combining mark makes one Character of the two).
        #expect(try Self.push(path: "/3/device/\(Self.token)?\u{301}").deviceToken == Self.token)
        #expect(ProviderRequestCheck.deviceToken(in: ProviderRequest(method: "POST", path: "/3/device/é?", headers: [])) == "é")
    }

    @Test func topicSuffixesNameTheApp() throws {
        #expect(try Self.push([("apns-topic", "com.example.app.voip")]).pushType == .voip)
        #expect(try Self.push([("apns-topic", "com.example.app.voip")]).bundleIdentifier == "com.example.app")
        let activity = try Self.push([("apns-topic", "com.example.app.push-type.liveactivity"), ("apns-push-type", "liveactivity")])
        #expect(activity.bundleIdentifier == "com.example.app" && activity.topic == "com.example.app.push-type.liveactivity")
        #expect(Self.check([("apns-topic", "com.example.app"), ("apns-push-type", "liveactivity")]) == .failure(.topicDisallowed))
        // The suffix alone names no app.
        #expect(Self.check([("apns-topic", "voip"), ("apns-push-type", "voip")]) == .failure(.topicDisallowed))
        // Another push type's suffix on an alert's topic.
        #expect(Self.check([("apns-topic", "com.example.app.complication"), ("apns-push-type", "alert")]) == .failure(.topicDisallowed))
        #expect(Self.check([("apns-topic", "com.exämple.app")]) == .failure(.badTopic))
    }

    @Test func theProviderTokenFollowsABearerScheme() throws {
        #expect(try Self.push().providerToken == nil)
        for (sent, token) in [("bearer a.b.c", "a.b.c"), ("Bearer  a.b.c \t", "a.b.c"), ("BEARER a.b.c", "a.b.c")] {
            #expect(try Self.push([("apns-topic", "a.b"), ("authorization", sent)]).providerToken == token, "\(sent)")
        }
        for refused in ["Basic a.b.c", "bearer", "bearer ", "bearer \t ", " bearer a.b.c", "bearerx a.b.c", "beare a.b.c"] {
            #expect(Self.check([("apns-topic", "a.b"), ("authorization", refused)]) == .failure(.invalidProviderToken), "\(refused)")
        }
    }
}
