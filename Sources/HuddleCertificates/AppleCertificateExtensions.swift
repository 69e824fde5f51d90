import HuddleAPNs
public import SwiftASN1

/// The parts of an APNs provider certificate that say what it may do, as Apple's certificate authority writes
/// them (docs/certificates.md, "Known").
///
/// Apple does not document them on its provider API pages; they come from its WWDR Certification Practice
/// Statement, and every client library that reads certificates reads them the same way (Pushy's `TopicUtil`,
/// lowdown's `Certificate`, SwiftyAPNS's `CustomExtensions`).
public enum AppleCertificateExtensions {
    /// Present in a certificate that may connect to the development environment.
    public static let development: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 1]
    /// Present in a certificate that may connect to the production environment.
    public static let production: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 2]
    /// The topics a certificate may push to: a SEQUENCE alternating each topic (a UTF8String) with a SEQUENCE
    /// holding its kind (`app`, `voip`, `complication`).
    public static let topics: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 6]
    /// The subject's UID attribute (RFC 4519 `uid`): the app's bundle identifier, the topic of a certificate
    /// without the topics extension and the default topic of a single-topic one.
    public static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]

    /// More topics than any app has push types: a longer list is refused, not read.
    public static let maximumTopics = 32

    /// The DER value of the topics extension for `topics`.
    public static func topicsValue(_ topics: [String]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            for topic in topics {
                try sequence.serialize(ASN1UTF8String(topic))
                try sequence.appendConstructedNode(identifier: .sequence) { kind in
                    try kind.serialize(ASN1UTF8String(Self.kind(of: topic, among: topics)))
                }
            }
        }
        return serializer.serializedBytes
    }

    /// Apple's label of a topic: `app` for the bundle identifier, the push type's suffix without its dot for the
    /// others (`voip`, `complication`, as Apple writes them).
    static func kind(of topic: String, among topics: [String]) -> String {
        guard let base = topics.filter({ topic.hasPrefix($0 + ".") }).max(by: { $0.count < $1.count }) else { return "app" }
        return String(topic.dropFirst(base.count + 1))
    }

    /// The topics a topics extension names, in order, after `leading` (the subject's UID), each once.
    /// - Throws: ``ProviderCertificateError`` when the value is not the sequence Apple writes, is longer than
    ///   ``maximumTopics`` topics and their kinds can be, names more than ``maximumTopics`` with `leading`, or
    ///   names a topic no request could carry.
    public static func readTopics(_ value: ArraySlice<UInt8>, after leading: [String] = []) throws(ProviderCertificateError) -> [String] {
        // Bounded before it is parsed: a topic is at most 255 bytes, its kind a few, each with a few bytes of DER.
        guard value.count <= maximumTopics * 300 else {
            throw ProviderCertificateError(.notAnAPNsCertificate, "its topics extension is \(value.count) bytes, more than \(maximumTopics) topics take")
        }
        let root: ASN1Node
        do {
            root = try DER.parse(value)
        } catch {
            throw ProviderCertificateError(.notAnAPNsCertificate, "its topics extension is not DER: \(error)")
        }
        guard root.identifier == .sequence, case .constructed(let children) = root.content else {
            throw ProviderCertificateError(.notAnAPNsCertificate, "its topics extension is not a sequence")
        }
        var topics = leading
        for child in children {
            // The kinds (a SEQUENCE after each topic) say nothing a topic's suffix does not.
            guard child.identifier != .sequence else { continue }
            guard let topic = Self.string(child), ProviderRequestCheck.isValidTopic(topic) else {
                throw ProviderCertificateError(.notAnAPNsCertificate, "its topics extension holds something that is not a topic")
            }
            guard !topics.contains(topic) else { continue }
            guard topics.count < maximumTopics else {
                throw ProviderCertificateError(.notAnAPNsCertificate, "it names more than \(maximumTopics) topics")
            }
            topics.append(topic)
        }
        return topics
    }

    /// The text of a string node of the kinds certificates use.
    static func string(_ node: ASN1Node) -> String? {
        switch node.identifier {
        case .utf8String: (try? ASN1UTF8String(derEncoded: node)).map { String($0) }
        case .printableString: (try? ASN1PrintableString(derEncoded: node)).map { String($0) }
        case .ia5String: (try? ASN1IA5String(derEncoded: node)).map { String($0) }
        default: nil
        }
    }
}
