import Crypto
public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HuddleAPNs
public import HuddleCore
import SwiftASN1
public import X509

/// A certificate authority of one's own, standing in for Apple's: it issues provider certificates with Apple's
/// extensions, and `huddle serve --client-ca` trusts it (docs/certificates.md).
///
/// Keys are P-256: Apple issues RSA certificates, but a provider's TLS stack takes either, and P-256 keys are
/// made at once.
public struct LocalCertificateAuthority: Sendable {
    public let certificate: Certificate
    let privateKey: Certificate.PrivateKey

    /// How long a new authority lasts.
    public static let validity: TimeInterval = 10 * 365 * 86_400

    /// A new authority with a new key.
    public static func make(now: Date = Date()) throws -> LocalCertificateAuthority {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            CommonName("Huddle local APNs certificate authority")
            OrganizationName("Huddle (for tests; not Apple)")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            // A little in the past, for clocks that run a little slow.
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(validity), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return LocalCertificateAuthority(certificate: certificate, privateKey: Certificate.PrivateKey(key))
    }

    /// The authority `huddle certs ca` wrote: its certificate and its key, PEM.
    public init(certificatePEM: String, privateKeyPEM: String) throws(ProviderCertificateError) {
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
            privateKey = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
        } catch {
            throw ProviderCertificateError(.unreadable, "not a certificate authority's PEM certificate and P-256 key: \(error)")
        }
        guard certificate.publicKey == privateKey.publicKey else {
            throw ProviderCertificateError(.unreadable, "the key is not the certificate's")
        }
    }

    init(certificate: Certificate, privateKey: Certificate.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    public var certificatePEM: String { get throws { try certificate.serializeAsPEM().pemString } }
    public var privateKeyPEM: String { get throws { try privateKey.serializeAsPEM().pemString } }

    /// A provider certificate for `request`, signed by this authority, as Apple's would be: the first topic
    /// in the subject's UID, every topic in Apple's topics extension, an environment extension per environment,
    /// for TLS client authentication only.
    public func issue(_ request: ProviderCertificateRequest, now: Date = Date()) throws -> IssuedCertificate {
        try request.validate()
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let bundleIdentifier = request.topics[0]
        // Apple's names: "Apple Development IOS Push Services: …" for a development certificate, "Apple Push
        // Services: …" for a production or universal one. Client libraries and people recognise them.
        let commonName = request.environments == [.development] ? "Apple Development IOS Push Services: \(bundleIdentifier)" : "Apple Push Services: \(bundleIdentifier)"
        let subject = DistinguishedName([
            RelativeDistinguishedName(.init(type: AppleCertificateExtensions.userID, utf8String: bundleIdentifier)),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: commonName)),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationName, utf8String: "Huddle (for tests; not Apple)")),
        ])
        // Apple's environment extensions are read for their presence; an ASN.1 NULL says nothing more.
        let present: ArraySlice<UInt8> = [0x05, 0x00]
        let authorityKeyIdentifier = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(TimeInterval(request.validityDays) * 86_400),
            issuer: self.certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
                SubjectKeyIdentifier(hash: publicKey)
                if let authorityKeyIdentifier { AuthorityKeyIdentifier(keyIdentifier: authorityKeyIdentifier) }
                if request.environments.contains(.development) {
                    Certificate.Extension(oid: AppleCertificateExtensions.development, critical: false, value: present)
                }
                if request.environments.contains(.production) {
                    Certificate.Extension(oid: AppleCertificateExtensions.production, critical: false, value: present)
                }
                Certificate.Extension(
                    oid: AppleCertificateExtensions.topics, critical: false, value: try AppleCertificateExtensions.topicsValue(request.topics)[...])
            },
            issuerPrivateKey: privateKey)
        return IssuedCertificate(certificate: certificate, privateKey: Certificate.PrivateKey(key), authority: self.certificate)
    }
}

extension LocalCertificateAuthority {
    /// The names a server certificate carries unless told otherwise: this machine's, and the hosts of Apple's and
    /// Google's push services, so that an SDK whose host is fixed reaches Huddle once the name resolves to it and
    /// this authority is trusted (docs/certificates.md, "Apple's and Google's host names").
    public static let serviceHosts = [
        "localhost", "127.0.0.1", "::1",
        "api.push.apple.com", "api.sandbox.push.apple.com", "api-manage-broadcast.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com",
        "fcm.googleapis.com", "oauth2.googleapis.com", "iid.googleapis.com",
    ]

    /// A TLS server certificate for `hosts` (DNS names and IP addresses), signed by this authority, for
    /// `huddle serve --tls-certificate`.
    public func issueServerCertificate(hosts: [String], validityDays: Int = 365, now: Date = Date()) throws -> IssuedCertificate {
        guard !hosts.isEmpty, hosts.count <= 100 else { throw ProviderCertificateError(.invalidRequest, "give 1 to 100 host names") }
        guard (1...ProviderCertificateRequest.maximumValidityDays).contains(validityDays) else {
            throw ProviderCertificateError(.invalidRequest, "a certificate is valid for 1 to \(ProviderCertificateRequest.maximumValidityDays) days")
        }
        var names: [GeneralName] = []
        for host in hosts {
            if let address = Self.addressBytes(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: address[...])))
            } else if Self.isHostName(host) {
                names.append(.dnsName(host.lowercased()))
            } else {
                throw ProviderCertificateError(.invalidRequest, "\"\(host.prefix(80))\" is neither a host name nor an IP address")
            }
        }
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let subject = try DistinguishedName {
            CommonName(hosts[0])
            OrganizationName("Huddle (for tests)")
        }
        let authorityKeyIdentifier = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(TimeInterval(validityDays) * 86_400),
            issuer: self.certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: publicKey)
                if let authorityKeyIdentifier { AuthorityKeyIdentifier(keyIdentifier: authorityKeyIdentifier) }
            },
            issuerPrivateKey: privateKey)
        return IssuedCertificate(certificate: certificate, privateKey: Certificate.PrivateKey(key), authority: self.certificate)
    }

    /// The bytes of an IPv4 or IPv6 address written as text; `nil` for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// A DNS name: dot-separated labels of letters, digits and hyphens (a leading `*.` for a wildcard), 253 bytes
    /// at most.
    static func isHostName(_ text: String) -> Bool {
        let name = text.hasPrefix("*.") ? String(text.dropFirst(2)) : text
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 253 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
        }
    }
}

/// What a provider certificate is to allow.
public struct ProviderCertificateRequest: Sendable {
    /// The app's bundle identifier first (it becomes the subject's UID), then any others (`….voip`,
    /// `….complication`).
    public var topics: [String]
    public var environments: Set<APNsEnvironment>
    public var validityDays: Int

    public static let maximumValidityDays = 3650

    public init(topics: [String], environments: Set<APNsEnvironment> = Set(APNsEnvironment.allCases), validityDays: Int = 365) {
        self.topics = topics
        self.environments = environments
        self.validityDays = validityDays
    }

    /// - Throws: ``ProviderCertificateError/Code/invalidRequest``, saying what to change.
    public func validate() throws(ProviderCertificateError) {
        guard !topics.isEmpty else { throw ProviderCertificateError(.invalidRequest, "give at least one topic: the app's bundle identifier") }
        guard topics.count <= AppleCertificateExtensions.maximumTopics else {
            throw ProviderCertificateError(.invalidRequest, "at most \(AppleCertificateExtensions.maximumTopics) topics")
        }
        if let bad = topics.first(where: { !ProviderRequestCheck.isValidTopic($0) }) {
            throw ProviderCertificateError(.invalidRequest, "\"\(bad.prefix(80))\" is not a topic: letters, digits, hyphens and periods, such as com.example.app")
        }
        guard Set(topics).count == topics.count else { throw ProviderCertificateError(.invalidRequest, "a topic is given twice") }
        if let suffix = PushType.liveactivity.topicSuffix, topics.contains(where: { $0.hasSuffix(suffix) }) {
            throw ProviderCertificateError(.invalidRequest, "Live Activity pushes take token authentication; a certificate cannot carry a \(suffix) topic")
        }
        guard !environments.isEmpty else { throw ProviderCertificateError(.invalidRequest, "give an environment") }
        guard (1...Self.maximumValidityDays).contains(validityDays) else {
            throw ProviderCertificateError(.invalidRequest, "a certificate is valid for 1 to \(Self.maximumValidityDays) days")
        }
    }
}

/// A provider certificate and its key, with the authority that issued it, ready to write out.
public struct IssuedCertificate: Sendable {
    public let certificate: Certificate
    public let privateKey: Certificate.PrivateKey
    public let authority: Certificate

    /// The certificate then its key, in one PEM file: what aioapns (`client_cert`), apns2, curl (`--cert`) and
    /// most libraries take.
    public var pem: String {
        get throws { try certificatePEM + privateKeyPEM }
    }

    /// The certificate alone, PEM (what `huddle serve --tls-certificate` takes).
    public var certificatePEM: String {
        get throws { try certificate.serializeAsPEM().pemString + "\n" }
    }

    /// The key alone, PEM (PKCS #8; what `huddle serve --tls-key` takes).
    public var privateKeyPEM: String {
        get throws { try privateKey.serializeAsPEM().pemString + "\n" }
    }

    /// The certificate and its key as a PKCS #12 file (`.p12`), as Keychain Access exports them, encrypted with
    /// `password`. ``PKCS12`` says how.
    public func pkcs12(password: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try PKCS12.write(
            certificateDER: serializer.serializedBytes, privateKeyPKCS8: try privateKey.serializeAsPEM().derBytes, password: password,
            friendlyName: certificate.subject.description)
    }
}
