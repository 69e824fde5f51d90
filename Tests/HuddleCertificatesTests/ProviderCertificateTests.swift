import Foundation
import HuddleAPNs
import HuddleCertificates
import HuddleCore
import SwiftASN1
import Testing
import X509

/// Making certificates with the local authority, and reading Apple's extensions from certificates, hostile ones
/// included.
@Suite struct ProviderCertificateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anIssuedCertificateReadsAsApplesDo() throws {
        let authority = try LocalCertificateAuthority.make(now: Self.now)
        let issued = try authority.issue(ProviderCertificateRequest(topics: ["com.example.app", "com.example.app.voip"]), now: Self.now)
        let read = try ProviderCertificate(reading: issued.certificate)
        #expect(read.bundleIdentifier == "com.example.app")
        #expect(read.topics == ["com.example.app", "com.example.app.voip"])
        #expect(read.environments == [.development, .production])
        #expect(read.subject.contains("Apple Push Services: com.example.app"))
        #expect(issued.certificate.issuer == authority.certificate.subject)
        let development = try authority.issue(ProviderCertificateRequest(topics: ["com.example.app"], environments: [.development]), now: Self.now)
        #expect(try ProviderCertificate(reading: development.certificate).subject.contains("Apple Development IOS Push Services"))
    }

    @Test func anIssuedCertificateVerifiesAgainstItsAuthorityOnly() async throws {
        // Made now: the verifier checks the dates against the current time.
        let authority = try LocalCertificateAuthority.make()
        let issued = try authority.issue(ProviderCertificateRequest(topics: ["com.example.app"]))
        func verifies(against root: Certificate) async -> Bool {
            var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy() }
            if case .validCertificate = await verifier.validate(leaf: issued.certificate, intermediates: CertificateStore()) { return true }
            return false
        }
        #expect(await verifies(against: authority.certificate))
        #expect(await !verifies(against: try LocalCertificateAuthority.make().certificate))
    }

    @Test func anAuthorityReadsBackFromItsPEM() throws {
        let authority = try LocalCertificateAuthority.make()
        let read = try LocalCertificateAuthority(certificatePEM: try authority.certificatePEM, privateKeyPEM: try authority.privateKeyPEM)
        #expect(read.certificate == authority.certificate)
        let other = try LocalCertificateAuthority.make()
        #expect(throws: ProviderCertificateError.self) {
            try LocalCertificateAuthority(certificatePEM: try authority.certificatePEM, privateKeyPEM: try other.privateKeyPEM)
        }
    }

    @Test func aCertificateWithoutApplesExtensionsIsNotAProviderCertificate() throws {
        let authority = try LocalCertificateAuthority.make()
        let error = #expect(throws: ProviderCertificateError.self) { try ProviderCertificate(reading: authority.certificate) }
        #expect(error?.code == .notAnAPNsCertificate)
        #expect(throws: ProviderCertificateError.self) { try ProviderCertificate(derEncoded: [0x30, 0x03, 0x02, 0x01]) }
    }

    @Test(arguments: [
        ([], "give at least one topic"),
        (["com.example app"], "is not a topic"),
        (["com.example.app", "com.example.app"], "twice"),
        (["com.example.app", "com.example.app.push-type.liveactivity"], "token authentication"),
        ((0...32).map { "com.example.app\($0)" }, "at most 32"),
    ])
    func aRequestForAnImpossibleCertificateIsRefused(topics: [String], message: String) throws {
        let error = #expect(throws: ProviderCertificateError.self) { try ProviderCertificateRequest(topics: topics).validate() }
        #expect(error?.description.contains(message) == true)
        #expect(throws: ProviderCertificateError.self) { try ProviderCertificateRequest(topics: ["com.example.app"], environments: []).validate() }
        #expect(throws: ProviderCertificateError.self) { try ProviderCertificateRequest(topics: ["com.example.app"], validityDays: 0).validate() }
    }

    @Test func theTopicsExtensionIsWrittenAsApplesIs() throws {
        let value = try AppleCertificateExtensions.topicsValue(["com.example.app", "com.example.app.voip", "com.example.app.complication"])
        // SEQUENCE { "com.example.app", SEQUENCE { "app" }, "com.example.app.voip", SEQUENCE { "voip" }, … }
        guard case .constructed(let nodes) = try DER.parse(value).content else { Issue.record("not constructed"); return }
        let kinds = Array(nodes).compactMap { node -> String? in
            guard case .constructed(let inner) = node.content, let first = Array(inner).first else { return nil }
            return try? String(ASN1UTF8String(derEncoded: first))
        }
        #expect(kinds == ["app", "voip", "complication"])
        #expect(try AppleCertificateExtensions.readTopics(value[...]) == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
    }

    @Test(arguments: [
        [0x04, 0x01, 0x00],  // not a sequence
        [0x30, 0x80],  // indefinite length: not DER
        [0x30, 0x03, 0x02, 0x01, 0x05],  // an integer where a topic goes
        [0x30, 0x05, 0x0C, 0x03, 0x61, 0x20, 0x62],  // "a b": not a topic
        [0x30, 0x04, 0x0C, 0x82, 0xFF, 0xFF],  // a length past the end
    ] as [[UInt8]])
    func aHostileTopicsExtensionIsRefusedNotCrashedOn(value: [UInt8]) {
        #expect(throws: ProviderCertificateError.self) { try AppleCertificateExtensions.readTopics(value[...]) }
    }

    @Test func tooManyTopicsAreRefused() throws {
        let topics = (0...AppleCertificateExtensions.maximumTopics).map { "com.example.app\($0)" }
        let value = try AppleCertificateExtensions.topicsValue(topics)
        #expect(throws: ProviderCertificateError.self) { try AppleCertificateExtensions.readTopics(value[...]) }
    }

    @Test func aTopicsExtensionIsBoundedBeforeItIsReadAndTheSubjectsTopicCounts() throws {
        // One topic repeated thousands of times: refused by its size, before it is parsed.
        let repeated = try AppleCertificateExtensions.topicsValue(Array(repeating: "com.example.app", count: 5000))
        #expect(throws: ProviderCertificateError.self) { try AppleCertificateExtensions.readTopics(repeated[...]) }
        // A repeat is read once, and the subject's UID is one of the bound.
        let listed = (1..<AppleCertificateExtensions.maximumTopics).map { "com.example.app\($0)" }
        let value = try AppleCertificateExtensions.topicsValue(listed + listed)
        #expect(try AppleCertificateExtensions.readTopics(value[...], after: ["com.example.app"]).count == AppleCertificateExtensions.maximumTopics)
        #expect(throws: ProviderCertificateError.self) {
            try AppleCertificateExtensions.readTopics(value[...], after: ["com.example.app", "com.example.other"])
        }
    }

    @Test func aPKCS12FileHoldsTheCertificateAndTheKey() throws {
        let issued = try LocalCertificateAuthority.make().issue(ProviderCertificateRequest(topics: ["com.example.app"]))
        let file = try issued.pkcs12(password: "secret")
        // PFX: SEQUENCE { INTEGER 3, ContentInfo, MacData }
        guard case .constructed(let parts) = try DER.parse(file).content else { Issue.record("not constructed"); return }
        let nodes = Array(parts)
        #expect(nodes.count == 3)
        #expect(try Int(derEncoded: nodes[0]) == 3)
        // openssl pkcs12 and Python's cryptography read it in the end-to-end tests (test_certificates.py).
    }
}
