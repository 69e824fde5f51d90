import ArgumentParser
import AsyncHTTPClient
import Foundation
import HuddleAPNs
import HuddleCore
import NIOCore
import NIOHTTP1
import NIOSSL

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a push, as a provider does, to Huddle or any APNs-compatible endpoint.",
        discussion: """
            Reads the payload from a file (or standard input with -), signs a provider token with the .p8 key, \
            and prints the status, the reason and the apns-id. HTTPS URLs use HTTP/2 (ALPN), http:// URLs \
            HTTP/1.1. Exits 0 on 200, 1 on a refusal, 66 for a payload or key file that is not there, 69 when \
            nothing answers at the URL.
            """
    )

    @Argument(help: "The payload file (JSON), or - for standard input.")
    var payload: String

    @Option(help: "The endpoint, e.g. http://127.0.0.1:8443 or https://api.sandbox.push.apple.com.")
    var url = "http://127.0.0.1:8443"

    @Option(help: "The device token.") var device: String
    @Option(help: "The apns-topic (the app's bundle identifier).") var topic: String
    @Option(help: "The .p8 signing key; without it no provider token is sent.") var key: String?
    @Option(help: "The key identifier (kid); default: from the key file name AuthKey_KEYID.p8.") var keyId: String?
    @Option(help: "The team identifier (iss).") var teamId: String?
    @Option(help: "apns-push-type.") var pushType = "alert"
    @Option(help: "apns-priority.") var priority: Int?
    @Option(help: "apns-collapse-id.") var collapseId: String?
    @Option(help: "apns-expiration (UNIX seconds).") var expiration: Int?
    @Option(help: "apns-id (a UUID).") var apnsId: String?
    @Option(help: "A PEM CA certificate to trust (a test server's self-signed certificate).") var caCertificate: String?
    @Option(help: "development or production: name Apple's host of that environment as the request's authority (Huddle picks the environment by it), whatever --url connects to.")
    var environment: APNsEnvironment?

    func validate() throws {
        if key != nil, teamId == nil { throw ValidationError("--key needs --team-id.") }
    }

    func run() async throws {
        try await reportingFailures(send)
    }

    private func send() async throws {
        let body = payload == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try CommandFailure.contents(of: payload, what: "the payload")
        var request = HTTPClientRequest(url: url.trimmingSuffix("/") + "/3/device/\(device)")
        request.method = .POST
        request.headers.add(name: "apns-topic", value: topic)
        request.headers.add(name: "apns-push-type", value: pushType)
        if let priority { request.headers.add(name: "apns-priority", value: String(priority)) }
        if let collapseId { request.headers.add(name: "apns-collapse-id", value: collapseId) }
        if let expiration { request.headers.add(name: "apns-expiration", value: String(expiration)) }
        if let apnsId { request.headers.add(name: "apns-id", value: apnsId) }
        if let environment {
            request.headers.replaceOrAdd(name: "host", value: environment.host)
        }
        if let key, let teamId {
            let token = try TokenCommand.sign(key: key, keyID: keyId, teamID: teamId, issuedAt: Date())
            request.headers.add(name: "authorization", value: "bearer \(token)")
        }
        request.body = .bytes(ByteBuffer(bytes: body))

        var tls = TLSConfiguration.makeClientConfiguration()
        if let caCertificate {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificate))
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let response: HTTPClientResponse
        let responseBody: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .seconds(30))
            responseBody = try await response.body.collect(upTo: 1 << 20)
        } catch {
            try await client.shutdown()
            throw CommandFailure.unreachable(url, error)
        }
        try await client.shutdown()
        let apnsID = response.headers.first(name: "apns-id") ?? "-"
        let text = String(buffer: responseBody)
        print("\(response.status.code) \(response.version) apns-id: \(apnsID)" + (text.isEmpty ? "" : " \(text.trimmingCharacters(in: .whitespacesAndNewlines))"))
        if response.status.code != 200 { throw ExitCode(1) }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
