import ArgumentParser
import Foundation
import HuddleCertificates
import HuddleCore

/// `huddle certs`: a local certificate authority, and provider certificates from it with Apple's extensions, for
/// testing certificate authentication against `huddle serve --client-ca` (docs/certificates.md).
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Make a local certificate authority, APNs provider certificates (PEM and .p12) and server certificates from it.",
        discussion: """
            huddle certs ca makes the authority once; huddle certs issue makes a provider certificate with Apple's \
            extensions (its environments and topics); huddle serve --client-ca <directory>/ca.pem trusts the \
            authority. huddle certs server makes the server's own certificate, for Apple's and Google's host names \
            too, for clients that trust the authority. These certificates are for tests: Apple's APNs does not know \
            this authority.
            """,
        subcommands: [AuthorityCommand.self, IssueCommand.self, ServerCommand.self]
    )

    /// Where an authority's files are, in its directory.
    struct AuthorityFiles {
        let directory: String
        var certificate: String { (directory as NSString).appendingPathComponent("ca.pem") }
        var key: String { (directory as NSString).appendingPathComponent("ca-key.pem") }
    }

    struct AuthorityCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ca",
            abstract: "Make a local certificate authority (ca.pem and ca-key.pem in a directory), unless there is one.",
            discussion: "Run again, it leaves the authority there as it is, so certificates it issued stay valid."
        )

        @Option(help: "The directory of the authority's files.") var directory = "huddle-ca"

        func run() async throws {
            try await reportingFailures(as: "certs ca") {
                let files = AuthorityFiles(directory: directory)
                let manager = FileManager.default
                switch (manager.fileExists(atPath: files.certificate), manager.fileExists(atPath: files.key)) {
                case (true, true):
                    print("A certificate authority is already in \(directory): \(files.certificate) (left as it is)")
                    return
                case (false, false):
                    break
                default:
                    throw CommandFailure(.badInput, "\(directory) holds one of ca.pem and ca-key.pem but not the other; remove it, or choose another --directory")
                }
                let authority = try LocalCertificateAuthority.make()
                try CertsCommand.write(Data(try authority.privateKeyPEM.utf8), to: files.key, secret: true, creatingDirectory: true)
                try CertsCommand.write(Data(try authority.certificatePEM.utf8), to: files.certificate, secret: false)
                print("""
                    Made a certificate authority in \(directory):
                      \(files.certificate)   its certificate: huddle serve --client-ca \(files.certificate)
                      \(files.key)   its private key (keep it to this machine)
                    Next: huddle certs issue --ca-directory \(directory) --topic <bundle id> --out <name>
                    """)
            }
        }
    }

    struct IssueCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "issue",
            abstract: "Issue a provider certificate: NAME.pem (certificate and key) and NAME.p12.",
            discussion: """
                The first --topic is the app's bundle identifier (the subject's UID, and the default topic of a \
                certificate with one topic); add others for its push types, as Apple does (com.example.app.voip, \
                com.example.app.complication). A certificate with several topics needs apns-topic on every request.
                """
        )

        enum Environments: String, ExpressibleByArgument, CaseIterable {
            case development, production, both

            var environments: Set<APNsEnvironment> {
                switch self {
                case .development: [.development]
                case .production: [.production]
                case .both: [.development, .production]
                }
            }
        }

        @Option(help: "The directory of the authority huddle certs ca made.") var caDirectory = "huddle-ca"
        @Option(help: "A topic the certificate may push to; repeat for several.") var topic: [String] = []
        @Option(help: "The environments it may connect to (Apple's certificates today: both).") var environment: Environments = .both
        @Option(help: "How many days it is valid.") var days = 365
        @Option(help: "The password of the .p12 file (default: none, an empty password).") var password = ""
        @Option(help: "The files to write: NAME.pem and NAME.p12.") var out: String

        func validate() throws {
            do {
                try request.validate()
            } catch {
                throw ValidationError(error.description)
            }
        }

        private var request: ProviderCertificateRequest {
            ProviderCertificateRequest(topics: topic, environments: environment.environments, validityDays: days)
        }

        func run() async throws {
            try await reportingFailures(as: "certs issue") {
                let files = AuthorityFiles(directory: caDirectory)
                let authority: LocalCertificateAuthority
                do {
                    authority = try LocalCertificateAuthority(
                        certificatePEM: try CommandFailure.text(of: files.certificate, what: "the authority's certificate"),
                        privateKeyPEM: try CommandFailure.text(of: files.key, what: "the authority's key"))
                } catch let error as ProviderCertificateError {
                    throw CommandFailure(.badInput, "\(caDirectory): \(error.description)")
                }
                let issued = try authority.issue(request)
                let certificate = try ProviderCertificate(reading: issued.certificate)
                try CertsCommand.write(Data(try issued.pem.utf8), to: out + ".pem", secret: true)
                try CertsCommand.write(Data(try issued.pkcs12(password: password)), to: out + ".p12", secret: true)
                print("""
                    \(certificate.subject)
                      topics: \(certificate.topics.joined(separator: ", "))
                      environments: \(certificate.environments.sorted().map(\.rawValue).joined(separator: ", "))
                      valid until: \(certificate.notValidAfter.formatted(.iso8601))
                    Wrote \(out).pem (certificate and key, PEM) and \(out).p12 (PKCS #12\(password.isEmpty ? ", empty password" : "")).
                    """)
            }
        }
    }

    struct ServerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "server",
            abstract: "Issue the server's TLS certificate: NAME.pem (the certificate) and NAME-key.pem (its key).",
            discussion: """
                By default it names this machine and the hosts of Apple's and Google's push services, so that an SDK \
                whose host is fixed (the Node, Java and .NET Admin SDKs send to fcm.googleapis.com) reaches Huddle once \
                the name resolves to it (an /etc/hosts line, compose's extra_hosts) and <ca-directory>/ca.pem is \
                trusted: huddle serve --port 443 --tls-certificate NAME.pem --tls-key NAME-key.pem.
                """
        )

        @Option(help: "The directory of the authority huddle certs ca made.") var caDirectory = "huddle-ca"
        @Option(help: "A host name or IP address the certificate names; repeat for several (default: this machine's, Apple's and Google's).")
        var host: [String] = []
        @Option(help: "How many days it is valid.") var days = 365
        @Option(help: "The files to write: NAME.pem and NAME-key.pem.") var out: String

        func run() async throws {
            try await reportingFailures(as: "certs server") {
                let files = AuthorityFiles(directory: caDirectory)
                let issued: IssuedCertificate
                do {
                    let authority = try LocalCertificateAuthority(
                        certificatePEM: try CommandFailure.text(of: files.certificate, what: "the authority's certificate"),
                        privateKeyPEM: try CommandFailure.text(of: files.key, what: "the authority's key"))
                    issued = try authority.issueServerCertificate(hosts: host.isEmpty ? LocalCertificateAuthority.serviceHosts : host, validityDays: days)
                } catch let error as ProviderCertificateError {
                    throw CommandFailure(.badInput, "\(caDirectory): \(error.description)")
                }
                try CertsCommand.write(Data(try issued.certificatePEM.utf8), to: out + ".pem", secret: false)
                try CertsCommand.write(Data(try issued.privateKeyPEM.utf8), to: out + "-key.pem", secret: true)
                let names = host.isEmpty ? LocalCertificateAuthority.serviceHosts : host
                print("""
                    A server certificate for \(names.joined(separator: ", ")), valid \(days) days.
                    Wrote \(out).pem and \(out)-key.pem: huddle serve --tls-certificate \(out).pem --tls-key \(out)-key.pem
                    Clients trust \(files.certificate) (NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, SSL_CERT_FILE, a Java trust store).
                    """)
            }
        }
    }

    /// Writes a file, readable by its owner only when it holds a private key.
    static func write(_ data: Data, to path: String, secret: Bool, creatingDirectory: Bool = false) throws {
        let manager = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        if creatingDirectory, !directory.isEmpty {
            do {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure(.cannotWrite, "\(directory): cannot be made (\(error.localizedDescription))")
            }
        }
        guard manager.createFile(atPath: path, contents: data, attributes: secret ? [.posixPermissions: 0o600] : nil) else {
            throw CommandFailure(.cannotWrite, "\(path): cannot be written (does its directory exist, and may you write there?)")
        }
    }
}
