public import Foundation
public import HuddleAPNs
public import HuddleCore

/// Certificate authentication of provider requests (docs/certificates.md): what a connection that presented a
/// verified APNs provider certificate may send.
public enum CertificateAuthentication {
    /// The `apns-topic` of a request that sent none: the certificate's one topic ("If you omit this header and
    /// your APNs certificate does not specify multiple topics, the APNs server uses the certificate's Subject as
    /// the default topic", Apple). With several, there is no default and the request is `MissingTopic`.
    public static func defaultTopic(of certificate: ProviderCertificate) -> String? {
        certificate.topics.count == 1 ? certificate.topics[0] : nil
    }

    /// Checks that the certificate may send `push` to `environment`, at `now`.
    /// - Throws: the refusal, with Apple's reason: `BadCertificate` for a certificate expired since the
    ///   connection was made, `BadCertificateEnvironment` for the other environment, `TopicDisallowed` for a
    ///   topic it does not list or a Live Activity push (Apple takes those with token authentication only).
    public static func check(
        _ push: ProviderPush, certificate: ProviderCertificate, environment: APNsEnvironment, now: Date
    ) throws(CertificateRefusal) {
        try checkValidity(of: certificate, in: environment, now: now)
        guard push.pushType != .liveactivity else {
            throw CertificateRefusal(.topicDisallowed, "Live Activity pushes take token authentication: APNs does not accept them on a certificate's connection")
        }
        guard certificate.topics.contains(push.topic) else {
            throw CertificateRefusal(
                .topicDisallowed, "the certificate may push to \(certificate.topics.joined(separator: ", ")) only, not to \(push.topic)")
        }
    }

    /// Checks that the certificate may manage an app's broadcast channels, or broadcast on them, in `environment`
    /// (Apple: a broadcast is authenticated "using either the provided authentication token or your server's
    /// certificate"): the app is one of its topics.
    public static func check(
        app: String, certificate: ProviderCertificate, environment: APNsEnvironment, now: Date
    ) throws(CertificateRefusal) {
        try checkValidity(of: certificate, in: environment, now: now)
        guard certificate.topics.contains(app) else {
            throw CertificateRefusal(.topicDisallowed, "the certificate serves \(certificate.topics.joined(separator: ", ")) only, not \(app)")
        }
    }

    private static func checkValidity(of certificate: ProviderCertificate, in environment: APNsEnvironment, now: Date) throws(CertificateRefusal) {
        // TLS checked the dates when the connection was made; a connection may outlive them.
        guard now <= certificate.notValidAfter else {
            throw CertificateRefusal(.badCertificate, "the certificate expired at \(certificate.notValidAfter.formatted(.iso8601)), after this connection was made")
        }
        guard certificate.environments.contains(environment) else {
            throw CertificateRefusal(
                .badCertificateEnvironment,
                "the certificate is for \(certificate.environments.sorted().map(\.rawValue).joined(separator: " and ")) only; "
                    + "this request went to \(environment.rawValue) (\(environment.host))")
        }
    }
}

/// A request certificate authentication refuses: Apple's reason, and what a person reading it needs to know.
public struct CertificateRefusal: Error, Sendable {
    public var reason: APNsReason
    public var description: String

    public init(_ reason: APNsReason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
