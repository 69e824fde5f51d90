/// What went wrong making, reading or checking a certificate: a code to branch on and a sentence for people.
public struct ProviderCertificateError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        let name: String
        /// A certificate without Apple's environment extensions or any topic: APNs answers `BadCertificate`.
        public static let notAnAPNsCertificate = Code(name: "notAnAPNsCertificate")
        /// Bytes that are not a certificate, a key or a PEM file.
        public static let unreadable = Code(name: "unreadable")
        /// A request to make a certificate that cannot be met (no topic, a bad topic, a bad validity).
        public static let invalidRequest = Code(name: "invalidRequest")
    }

    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
