import Foundation
import HuddleAPNs
import HuddleCertificates
import HuddleCore
import NIOCore
import NIOSSL
import Synchronization

/// The client certificate a provider connection presented in its TLS handshake, as certificate authentication
/// sees it (docs/certificates.md).
enum PresentedCertificate: Sendable {
    /// None: the connection authenticates its requests with provider tokens.
    case none
    case provider(ProviderCertificate)
    /// Verified by TLS against the trusted authority, but not a provider certificate (no Apple extensions): every
    /// request is answered `BadCertificate`, saying why.
    case unusable(String)
}

extension PresentedCertificate {
    /// What a certificate a TLS handshake verified is, for provider requests.
    init(reading certificate: NIOSSLCertificate) {
        do {
            self = .provider(try ProviderCertificate(derEncoded: try certificate.toDERBytes()))
        } catch let error as ProviderCertificateError {
            self = .unusable(error.description)
        } catch {
            self = .unusable("the certificate cannot be read: \(error)")
        }
    }
}

extension PresentedCertificate {
    /// The request as checked, with the certificate's topic when it sent no `apns-topic` and the certificate has
    /// one topic (Apple: the certificate's subject is then the default topic). With several, the request stays
    /// without one and is refused `MissingTopic`, as Apple refuses it.
    func defaultingTopic(of request: ProviderRequest) -> ProviderRequest {
        guard case .provider(let certificate) = self, request.first("apns-topic") == nil,
            let topic = CertificateAuthentication.defaultTopic(of: certificate)
        else { return request }
        var request = request
        request.headers.append((name: "apns-topic", value: topic))
        return request
    }

    /// Notes the certificate in the inspector's record, whatever becomes of the request.
    func note(in record: inout SenderRequestRecord) {
        guard case .provider(let certificate) = self else { return }
        record.certificateSubject = certificate.subject
        record.certificateTopics = certificate.topics
    }

    /// Authenticates a push by the connection's certificate.
    /// - Returns: whether the certificate authenticated it; `false` when the connection has none, and tokens
    ///   decide.
    /// - Throws: the refusal, with Apple's reason.
    func authenticates(_ push: ProviderPush, in environment: APNsEnvironment, now: Date) throws(ProviderRefusal) -> Bool {
        try authenticates { certificate throws(CertificateRefusal) in
            try CertificateAuthentication.check(push, certificate: certificate, environment: environment, now: now)
        }
    }

    /// Authenticates a channel-management or broadcast request for `app` by the connection's certificate.
    func authenticates(app: String, in environment: APNsEnvironment, now: Date) throws(ProviderRefusal) -> Bool {
        try authenticates { certificate throws(CertificateRefusal) in
            try CertificateAuthentication.check(app: app, certificate: certificate, environment: environment, now: now)
        }
    }

    private func authenticates(_ check: (ProviderCertificate) throws(CertificateRefusal) -> Void) throws(ProviderRefusal) -> Bool {
        switch self {
        case .none:
            return false
        case .unusable(let why):
            throw ProviderRefusal(reason: .badCertificate, description: why)
        case .provider(let certificate):
            do {
                try check(certificate)
            } catch {
                throw ProviderRefusal(reason: error.reason, description: error.description)
            }
            return true
        }
    }
}
