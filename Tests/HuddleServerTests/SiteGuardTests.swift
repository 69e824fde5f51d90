import Foundation
import HTTPTypes
import HuddleCore
@testable import HuddleServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The rules that keep other sites out (``SiteGuard``), the escaper of the pages, and the bounds on what
/// pages show, through the router.
@Suite struct SiteGuardTests {
    static func withApplication(
        _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await HomePageTests.withApplication(configure, body)
    }

    /// Marks that join `<`, `>` or `"` into one `Character` with what stands beside them.
    static let joiningTricks = [
        "\u{600}<img src=x onerror=alert(1)>\u{301}", "\"\u{301} onmouseover=alert(1) x=\u{301}", "<\u{301}script>", "\u{1F1FA}<b>\u{200D}",
        "a\u{20DD}'\u{301}&amp;",
    ]

    @Test(arguments: joiningTricks)
    func theEscaperLeavesNoMarkupWhateverJoinsIt(text: String) {
        let escaped = HTML.escape(text)
        #expect(!escaped.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) })
        // Everything else is left as it was: the escaped text reads back as the text. (Undone by bytes:
        // Foundation's replacingOccurrences compares Characters, and misses "&gt;" before U+0301 too.)
        #expect(Self.unescape(escaped) == Array(text.utf8))
    }

    @Test(arguments: joiningTricks)
    func everyTemplateEscapesByScalar(text: String) {
        let group = RenderedGroup(
            id: text, app: "com.example.app", appName: text, thread: text, count: 2, previewsHidden: false, summary: text,
            hiddenPreviewsText: nil,
            notifications: [
                RenderedNotification(
                    id: text, date: Date(timeIntervalSince1970: 0), title: text, subtitle: text, body: text, categoryIdentifier: "c",
                    threadIdentifier: text, summaryArgument: text, summaryArgumentCount: 1, interruptionLevel: .active,
                    relevanceScore: nil, userInfo: JSONObject())
            ])
        let html = WebPages.shared.group(group, languages: ["en"])
        for markup in ["<img", "<b>", "\"\u{301} onmouseover", "<\u{301}script", "'\u{301}"] {
            #expect(!Self.contains(html, markup), "\(markup) reached the page")
        }
    }

    /// Whether `text`'s UTF-8 bytes hold `part`'s: `String.contains` compares Characters, which is the very
    /// thing these tests must not trust.
    static func contains(_ text: String, _ part: String) -> Bool {
        let bytes = Array(text.utf8)
        let needle = Array(part.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The five entities back to their bytes.
    static func unescape(_ text: String) -> [UInt8] {
        let entities: [(String, UInt8)] = [("&lt;", 0x3C), ("&gt;", 0x3E), ("&quot;", 0x22), ("&#39;", 0x27), ("&amp;", 0x26)]
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var index = 0
        outer: while index < bytes.count {
            for (entity, byte) in entities where bytes[index...].starts(with: entity.utf8) {
                result.append(byte)
                index += entity.utf8.count
                continue outer
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    @Test func aPageCutsALongTitleAndName() {
        let long = String(repeating: "x", count: 10_000)
        let group = RenderedGroup(
            id: "g", app: "com.example.app", appName: long, thread: nil, count: 1, previewsHidden: false, summary: nil,
            hiddenPreviewsText: nil,
            notifications: [
                RenderedNotification(
                    id: "n", date: Date(timeIntervalSince1970: 0), title: long, subtitle: nil, body: nil, categoryIdentifier: "c",
                    threadIdentifier: "", summaryArgument: "", summaryArgumentCount: 1, interruptionLevel: .active,
                    relevanceScore: nil, userInfo: JSONObject())
            ])
        let html = WebPages.shared.group(group, languages: ["en"])
        let shown = String(repeating: "x", count: DisplayText.maximumShownScalars)
        #expect(html.contains(shown + "…") && !html.contains(shown + "x"))
    }

    @Test func cookiesAreForTheSiteOutOfScriptsReachAndSecureOverTLS() {
        #expect(Cookie.header("a", "b", secure: false) == "a=b; Path=/; HttpOnly; SameSite=Strict")
        #expect(Cookie.header("a", "b", secure: true, maxAge: 60) == "a=b; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure")
    }

    @Test func aStreamResumingFromSomethingThatIsNoNumberIs400() async throws {
        try await Self.withApplication { client in
            let response = try await client.execute(
                uri: "/v1/admin/requests/stream", method: .get,
                headers: [.authorization: "Bearer admin-secret-token", HTTPField.Name("Last-Event-ID")!: "soon"])
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains("Last-Event-ID"))
        }
    }

    @Test func pagesShowAtMostTheirShareOfALongText() {
        let long = String(repeating: "é", count: DisplayText.maximumShownScalars * 3)
        #expect(DisplayText.shown(long).unicodeScalars.count == DisplayText.maximumShownScalars + 1)
        #expect(DisplayText.shown("short") == "short")
        // One character of many marks counts as many scalars.
        let marks = "a" + String(repeating: "\u{301}", count: 500)
        #expect(throws: APIError.self) { try DisplayText.checkName(marks, field: "name") }
        #expect(DisplayText.cutName(marks).unicodeScalars.count == DisplayText.maximumNameScalars)
    }

    @Test(arguments: [
        ("127.0.0.1:8443", true), ("localhost:8443", true), ("LOCALHOST.", true), ("[::1]:8443", true), ("10.1.2.3", true),
        ("huddle.test:8443", true), ("rebind.attacker.example", false), ("127.0.0.1.evil.example", false),
        ("localhost.evil.example", false), ("2130706433", false), ("0x7f.0.0.1", false), ("256.0.0.1", false), ("[::1].evil", false), ("localhost:80@evil.example", false), ("localhost:", true),
    ])
    func hostsAreThoseOfTheServer(authority: String, allowed: Bool) {
        let hosts = AllowedHosts(publicHosts: ["huddle.test"], listeningHost: "127.0.0.1")
        #expect(hosts.allows(authority) == allowed)
        #expect(AllowedHosts(publicHosts: ["*"], listeningHost: "127.0.0.1").allows(authority))
    }

    @Test func otherHostsAndOriginsAreRefusedAndPagesCarryTheirPolicy() async throws {
        try await Self.withApplication { client in
            // (The router's test client always names the host `localhost`; the end-to-end tests try others.)
            let missing = try await client.execute(uri: "/nowhere", method: .get)
            #expect(missing.status == .notFound && missing.headers[.xContentTypeOptions] == "nosniff")
            let foreign = try await client.execute(uri: "/v1/devices", method: .post, headers: [.origin: "http://evil.example"])
            #expect(foreign.status == .forbidden)
            let sameSite = try await client.execute(uri: "/v1/devices", method: .post, headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-site"])
            #expect(sameSite.status == .forbidden)
            let own = try await client.execute(uri: "/v1/devices", method: .post, headers: [.origin: "http://localhost"])
            #expect(own.status == .created)
            let curl = try await client.execute(uri: "/v1/devices", method: .post)
            #expect(curl.status == .created)
            // Only web schemes: the host and port alone do not make an origin this server's.
            let odd = try await client.execute(uri: "/v1/devices", method: .post, headers: [.origin: "evil://localhost"])
            #expect(odd.status == .forbidden)
            // A form route reads only forms: a body called JSON (which skips the form token) is not read as one.
            let jsonForm = try await client.execute(
                uri: "/devices", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "name=viajson"))
            #expect(jsonForm.status == .unsupportedMediaType)
            let page = try await client.execute(uri: "/", method: .get)
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"))
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(!String(buffer: page.body).contains("<script>"))
        }
    }

    @Test func aCookieSignedPostToTheJSONAPIMustBeJSON() async throws {
        try await Self.withApplication { client in
            let refused = try await client.execute(
                uri: "/v1/devices/00/notifications/remove", method: .post, headers: [.cookie: "huddle-00=x", .contentType: "text/plain"],
                body: ByteBuffer(string: "{}"))
            #expect(refused.status == .unsupportedMediaType)
            let json = try await client.execute(
                uri: "/v1/devices/00/notifications/remove", method: .post,
                headers: [.cookie: "huddle-00=x", .contentType: "Application/JSON; charset=utf-8"], body: ByteBuffer(string: "{}"))
            #expect(json.status == .unauthorized)
        }
    }

    /// Wrong metrics, registration and admin tokens are counted per address and per token: guesses at one
    /// slow that one down, not the others; the right token always gets in; a request that sends no token is no
    /// guess.
    @Test func wrongTokensAreCountedPerToken() async throws {
        try await Self.withApplication({ $0.metricsToken = "metrics-token"; $0.registrationToken = "registration-token" }) { client in
            for _ in 0..<20 {
                #expect(try await client.execute(uri: "/v1/devices", method: .post).status == .unauthorized)
            }
            for _ in 0..<SignInAttempts.maximumFailures {
                #expect(try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer guess"]).status == .unauthorized)
            }
            let held = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer guess"])
            #expect(held.status == .tooManyRequests && held.headers[.retryAfter] != nil)
            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer metrics-token"])
            #expect(metrics.status == .ok)
            let registration = try await client.execute(uri: "/v1/devices", method: .post, headers: [.authorization: "Bearer registration-token"])
            #expect(registration.status == .created)
            let admin = try await client.execute(uri: "/v1/admin/keys", method: .get, headers: [.authorization: "Bearer admin-secret-token"])
            #expect(admin.status == .ok)
        }
    }

    /// Guesses sent at once are counted and judged in one step: of fifty at once, ten are answered as wrong at
    /// once and forty are held back (429, after the pause), not fifty answered at once.
    @Test func guessesSentAtOnceCannotAllPassTheCount() async throws {
        let attempts = SignInAttempts(pause: .milliseconds(10))
        let answeredAtOnce = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { (try? await attempts.verify("guess", is: "token", kind: .admin, client: "192.0.2.9")) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answeredAtOnce == SignInAttempts.maximumFailures)
    }

    /// Past ten wrong tokens, each wrong one waits for its answer (429), while the right token still gets in at
    /// once: no one can lock the admin out by guessing.
    @Test func wrongTokensPastTheLimitArePausedAndTheRightOneStillGetsIn() async throws {
        let attempts = SignInAttempts(pause: .milliseconds(300))
        for _ in 0..<SignInAttempts.maximumFailures {
            #expect(try await !attempts.verify("guess", is: "token", kind: .admin, client: "192.0.2.1"))
        }
        let clock = ContinuousClock()
        var refusal: APIError?
        let waited = await clock.measure {
            do { _ = try await attempts.verify("guess", is: "token", kind: .admin, client: "192.0.2.1") } catch { refusal = error as? APIError }
        }
        #expect(refusal?.kind == .tooManyRequests && refusal?.retryAfter == 1)
        #expect(waited >= .milliseconds(300))
        #expect(try await attempts.verify("token", is: "token", kind: .admin, client: "192.0.2.1"))
        // Another address has its own count.
        #expect(try await !attempts.verify("guess", is: "token", kind: .admin, client: "192.0.2.2"))
    }

    /// The whole loopback range is one client, and an IPv6 host is its /64: changing the address buys no fresh
    /// guesses.
    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("127.12.0.9", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.3", "loopback"),
        ("192.0.2.7", "192.0.2.7"), ("2001:db8:1:2:aaaa::1", "ipv6 20010db800010002/64"), ("2001:db8:1:2:ffff::9", "ipv6 20010db800010002/64"),
        ("unknown", "unknown"),
    ])
    func clientsAreCountedByHostNotByAddress(address: String, key: String) {
        #expect(SignInAttempts.clientKey(address) == key)
    }
}
