import Testing

@testable import HuddleServer

/// A Live Activity token says which app it was made for, so that a push naming another app's topic is refused
/// (issue 41), and a token no device gave out is told from another app's.
struct LiveActivityTokensTests {
    static let device = String(repeating: "ab", count: 32)

    @Test func aPushToStartTokenBelongsToItsAppOnly() {
        let token = LiveActivityTokens.pushToStart(device: Self.device, app: "com.b.app", type: "Score")
        #expect(token.utf8.count == LiveActivityTokens.length && LiveActivityTokens.device(of: token) == Self.device)
        #expect(LiveActivityTokens.owner(of: token, app: "com.b.app") == .app)
        #expect(LiveActivityTokens.owner(of: token, app: "com.a.app") == .anotherApp)
        #expect(LiveActivityTokens.isPushToStart(token, app: "com.b.app", type: "Score"))
        #expect(!LiveActivityTokens.isPushToStart(token, app: "com.b.app", type: "Other"))
        #expect(!LiveActivityTokens.isPushToStart(token, app: "com.a.app", type: "Score"))
    }

    @Test func anUpdateTokenIsNewEachTimeAndBelongsToItsApp() {
        let first = LiveActivityTokens.newUpdateToken(device: Self.device, app: "com.b.app")
        let second = LiveActivityTokens.newUpdateToken(device: Self.device, app: "com.b.app")
        #expect(first != second && first.utf8.count == LiveActivityTokens.length)
        #expect(LiveActivityTokens.owner(of: first, app: "com.b.app") == .app)
        #expect(LiveActivityTokens.owner(of: first, app: "com.a.app") == .anotherApp)
    }

    /// A token the device never gave out, or one of another device's mark copied onto this device, is no app's.
    @Test func aTokenNoDeviceGaveOutIsUnknown() {
        #expect(LiveActivityTokens.owner(of: Self.device + String(repeating: "0", count: 64), app: "com.b.app") == .unknown)
        let elsewhere = LiveActivityTokens.pushToStart(device: String(repeating: "cd", count: 32), app: "com.b.app", type: "Score")
        let moved = Self.device + elsewhere.dropFirst(64)
        #expect(LiveActivityTokens.owner(of: moved, app: "com.b.app") == .unknown)
        #expect(LiveActivityTokens.owner(of: "short", app: "com.b.app") == .unknown)
    }
}
