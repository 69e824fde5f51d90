import Foundation
import HuddleAPNs
import HuddleCertificates
import HuddleCore
import Testing
import X509

/// The rules a certificate's connection is held to, on certificates the local authority issues.
@Suite struct CertificateAuthenticationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func certificate(_ topics: [String], _ environments: Set<APNsEnvironment> = [.development, .production]) throws -> ProviderCertificate {
        let issued = try LocalCertificateAuthority.make(now: now).issue(ProviderCertificateRequest(topics: topics, environments: environments), now: now)
        return try ProviderCertificate(reading: issued.certificate)
    }

    static func push(topic: String?, pushType: String? = nil) throws -> ProviderPush {
        var headers: [(name: String, value: String)] = []
        if let topic { headers.append((name: "apns-topic", value: topic)) }
        if let pushType { headers.append((name: "apns-push-type", value: pushType)) }
        return try ProviderRequestCheck.check(ProviderRequest(method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32), headers: headers), now: Date()).result.get()
    }

    static func refusal(_ push: ProviderPush, _ certificate: ProviderCertificate, _ environment: APNsEnvironment, at date: Date = now) -> APNsReason? {
        do {
            try CertificateAuthentication.check(push, certificate: certificate, environment: environment, now: date)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func aSingleTopicCertificateDefaultsToItsTopic() throws {
        #expect(CertificateAuthentication.defaultTopic(of: try Self.certificate(["com.example.app"])) == "com.example.app")
        #expect(CertificateAuthentication.defaultTopic(of: try Self.certificate(["com.example.app", "com.example.app.voip"])) == nil)
    }

    @Test func aCertificateMaySendToItsTopicsOnly() throws {
        let certificate = try Self.certificate(["com.example.app", "com.example.app.voip"])
        #expect(Self.refusal(try Self.push(topic: "com.example.app"), certificate, .development) == nil)
        #expect(Self.refusal(try Self.push(topic: "com.example.app.voip", pushType: "voip"), certificate, .production) == nil)
        #expect(Self.refusal(try Self.push(topic: "com.example.other"), certificate, .development) == .topicDisallowed)
        #expect(Self.refusal(try Self.push(topic: "com.example.app.complication", pushType: "complication"), certificate, .development) == .topicDisallowed)
    }

    @Test func aCertificateForOneEnvironmentIsRefusedInTheOther() throws {
        let development = try Self.certificate(["com.example.app"], [.development])
        #expect(Self.refusal(try Self.push(topic: "com.example.app"), development, .production) == .badCertificateEnvironment)
        #expect(Self.refusal(try Self.push(topic: "com.example.app"), development, .development) == nil)
        let production = try Self.certificate(["com.example.app"], [.production])
        #expect(Self.refusal(try Self.push(topic: "com.example.app"), production, .development) == .badCertificateEnvironment)
    }

    @Test func liveActivityPushesTakeTokens() throws {
        var certificate = try Self.certificate(["com.example.app"])
        // Even a certificate that listed the topic (the local authority refuses to issue one).
        certificate.topics.append("com.example.app.push-type.liveactivity")
        let push = try Self.push(topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity")
        #expect(Self.refusal(push, certificate, .development) == .topicDisallowed)
    }

    @Test func aCertificateThatExpiredDuringTheConnectionIsBad() throws {
        let certificate = try Self.certificate(["com.example.app"])
        let later = certificate.notValidAfter.addingTimeInterval(1)
        #expect(Self.refusal(try Self.push(topic: "com.example.app"), certificate, .development, at: later) == .badCertificate)
    }
}
