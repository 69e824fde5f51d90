import Foundation
import HuddleAPNs
import HuddleCertificates
import HuddleCore
@testable import HuddleServer
import Testing

/// How the provider endpoint uses a connection's certificate: the one-topic default, and authentication in place of
/// a token.
struct PresentedCertificateTests {
    static func certificate(_ topics: [String], _ environments: Set<APNsEnvironment> = [.development]) -> PresentedCertificate {
        .provider(ProviderCertificate(
            subject: "UID=\(topics[0]),CN=Apple Push Services: \(topics[0])", bundleIdentifier: topics[0], topics: topics,
            environments: environments, notValidAfter: .distantFuture))
    }

    static func request(topic: String? = nil) -> ProviderRequest {
        ProviderRequest(
            method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32),
            headers: topic.map { [(name: "apns-topic", value: $0)] } ?? [])
    }

    static func record() -> SenderRequestRecord {
        SenderRequestRecord(receivedAt: Date(), httpVersion: "HTTP/2", tls: true, method: "POST", path: "/3/device/x", headers: [])
    }

    @Test func aRequestWithoutATopicTakesTheCertificatesOnlyOne() {
        #expect(Self.certificate(["com.example.app"]).defaultingTopic(of: Self.request()).values("apns-topic") == ["com.example.app"])
        #expect(Self.certificate(["com.example.app", "com.example.app.voip"]).defaultingTopic(of: Self.request()).values("apns-topic").isEmpty)
        #expect(Self.certificate(["com.example.app"]).defaultingTopic(of: Self.request(topic: "com.example.other")).values("apns-topic") == ["com.example.other"])
        #expect(PresentedCertificate.none.defaultingTopic(of: Self.request()).values("apns-topic").isEmpty)
    }

    @Test func aCertificateAuthenticatesInPlaceOfAToken() throws {
        let push = try ProviderRequestCheck.check(Self.request(topic: "com.example.app"), now: Date()).result.get()
        var record = Self.record()
        #expect(try PresentedCertificate.none.authenticates(push, in: record.environment, now: Date()) == false)
        #expect(try Self.certificate(["com.example.app"]).authenticates(push, in: record.environment, now: Date()))
        Self.certificate(["com.example.app"]).note(in: &record)
        #expect(record.certificateTopics == ["com.example.app"])
        #expect(record.json(now: Date())["authentication"] == "certificate")
        record.environment = .production
        let refusal = #expect(throws: ProviderRefusal.self) { try Self.certificate(["com.example.app"]).authenticates(push, in: record.environment, now: Date()) }
        #expect(refusal?.reason == .badCertificateEnvironment)
        let unusable = #expect(throws: ProviderRefusal.self) { try PresentedCertificate.unusable("no topic").authenticates(push, in: record.environment, now: Date()) }
        #expect(unusable?.reason == .badCertificate && unusable?.description == "no topic")
    }
}
