public import Foundation
import HuddleAPNs
public import HuddleCore
import SwiftASN1
public import X509

/// What an APNs provider certificate allows: the environments it may connect to and the topics it may push to.
///
/// Read from a certificate that TLS already verified; it is still a stranger's bytes, so every part is bounded
/// and anything unexpected is a ``ProviderCertificateError``, never a crash.
public struct ProviderCertificate: Sendable, Hashable {
    /// The subject as text (RFC 4514), at most ``maximumSubjectLength`` characters, for the request inspector.
    public var subject: String
    /// The subject's UID: the app's bundle identifier.
    public var bundleIdentifier: String?
    /// Every topic it may push to, the UID's first; never empty.
    public var topics: [String]
    /// Never empty.
    public var environments: Set<APNsEnvironment>
    public var notValidAfter: Date

    static let maximumSubjectLength = 300

    public init(subject: String, bundleIdentifier: String?, topics: [String], environments: Set<APNsEnvironment>, notValidAfter: Date) {
        self.subject = subject
        self.bundleIdentifier = bundleIdentifier
        self.topics = topics
        self.environments = environments
        self.notValidAfter = notValidAfter
    }

    /// Reads what `certificate` allows, the way APNs client libraries read Apple's certificates: the environments
    /// from Apple's two environment extensions; the topics from the subject's UID and the topics extension (a
    /// certificate without that extension has the UID as its one topic).
    /// - Throws: ``ProviderCertificateError/Code/notAnAPNsCertificate`` without an environment extension or a topic.
    public init(reading certificate: Certificate) throws(ProviderCertificateError) {
        var environments: Set<APNsEnvironment> = []
        if certificate.extensions[oid: AppleCertificateExtensions.development] != nil { environments.insert(.development) }
        if certificate.extensions[oid: AppleCertificateExtensions.production] != nil { environments.insert(.production) }
        guard !environments.isEmpty else {
            throw ProviderCertificateError(.notAnAPNsCertificate, "the certificate has neither of Apple's environment extensions (1.2.840.113635.100.6.3.1 development, .3.2 production)")
        }
        let userID = certificate.subject.lazy.flatMap { $0 }.first { $0.type == AppleCertificateExtensions.userID }.flatMap { String($0.value) }
        var topics: [String] = []
        if let userID {
            guard ProviderRequestCheck.isValidTopic(userID) else {
                throw ProviderCertificateError(.notAnAPNsCertificate, "the certificate's subject UID is not a bundle identifier")
            }
            topics.append(userID)
        }
        if let listed = certificate.extensions[oid: AppleCertificateExtensions.topics] {
            topics = try AppleCertificateExtensions.readTopics(listed.value, after: topics)
        }
        guard !topics.isEmpty else {
            throw ProviderCertificateError(.notAnAPNsCertificate, "the certificate names no topic: neither a subject UID nor Apple's topics extension (1.2.840.113635.100.6.3.6)")
        }
        self.init(
            subject: String(certificate.subject.description.prefix(Self.maximumSubjectLength)), bundleIdentifier: userID, topics: topics,
            environments: environments, notValidAfter: certificate.notValidAfter)
    }

    /// Reads a DER certificate, as TLS hands it over.
    public init(derEncoded bytes: [UInt8]) throws(ProviderCertificateError) {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: bytes)
        } catch {
            throw ProviderCertificateError(.unreadable, "the certificate cannot be read: \(error)")
        }
        try self.init(reading: certificate)
    }
}
