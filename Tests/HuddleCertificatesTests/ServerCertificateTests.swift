import Foundation
import HuddleCertificates
import SwiftASN1
import Testing
import X509

/// `huddle certs server`'s certificate: the names it carries (DNS names and IP addresses), for a TLS server only, signed
/// by the local authority, and the host names it refuses.
@Suite struct ServerCertificateTests {
    @Test func itNamesEveryHostForAServerAndIsSignedByTheAuthority() throws {
        let authority = try LocalCertificateAuthority.make()
        let issued = try authority.issueServerCertificate(hosts: LocalCertificateAuthority.serviceHosts)
        let certificate = issued.certificate
        let names = try #require(try certificate.extensions.subjectAlternativeNames)
        var dnsNames: [String] = []
        var addresses: [[UInt8]] = []
        for name in names {
            switch name {
            case .dnsName(let host): dnsNames.append(host)
            case .ipAddress(let bytes): addresses.append(Array(bytes.bytes))
            default: Issue.record("an unexpected name \(name)")
            }
        }
        #expect(dnsNames.contains("fcm.googleapis.com") && dnsNames.contains("api.sandbox.push.apple.com") && dnsNames.contains("localhost"))
        #expect(addresses.contains([127, 0, 0, 1]) && addresses.contains([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))
        #expect(try certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(certificate.issuer == authority.certificate.subject)
        #expect(authority.certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(try issued.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----") && issued.privateKeyPEM.contains("PRIVATE KEY"))
    }

    @Test func hostsThatAreNoNamesAreRefused() throws {
        let authority = try LocalCertificateAuthority.make()
        for hosts in [[], ["not a host"], ["-leading.example"], [String(repeating: "a", count: 64) + ".example"], ["a..b"], Array(repeating: "a.example", count: 101)] {
            #expect(throws: ProviderCertificateError.self, "\(hosts.prefix(2))") { try authority.issueServerCertificate(hosts: hosts) }
        }
        #expect(throws: ProviderCertificateError.self) { try authority.issueServerCertificate(hosts: ["a.example"], validityDays: 0) }
        #expect((try? authority.issueServerCertificate(hosts: ["*.huddle.test", "10.1.2.3"])) != nil)
    }
}
