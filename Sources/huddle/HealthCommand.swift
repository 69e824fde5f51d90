import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask a running server whether it is up (GET /health): exit 0 when it answers 200, else 1.",
        discussion: """
            For container health checks, so that an image needs no curl. Without a URL it asks the server that \
            this environment describes as huddle serve reads it: HUDDLE_PORT (else 8443), HUDDLE_HOST (on \
            127.0.0.1 when that is every address, 0.0.0.0 or ::), https when HUDDLE_TLS_CERTIFICATE is set. \
            A URL without a path gets /health.
            """
    )

    @Argument(help: "The server, e.g. http://127.0.0.1:8443 (default: from the environment, as above).")
    var url: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout = 5

    @Option(help: "A PEM CA certificate to trust (a test server's self-signed certificate).")
    var caCertificate: String?

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
        if let url, URL(string: url)?.host == nil { throw ValidationError("\"\(url)\": expected a URL such as http://127.0.0.1:8443") }
    }

    func run() async throws {
        let target = url.map { Self.healthURL($0) } ?? Self.localURL(environment: ProcessInfo.processInfo.environment)
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caCertificate {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificate))
        } else if url == nil {
            // Our own server in this same environment, asked only whether it answers: its certificate is made
            // for the clients elsewhere and rarely names 127.0.0.1, and nothing secret is sent or learnt.
            tls.certificateVerification = .none
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        defer { _ = client.shutdown() }
        let status: UInt
        do {
            let response = try await client.execute(HTTPClientRequest(url: target), timeout: .seconds(Int64(timeout)))
            _ = try await response.body.collect(upTo: 1 << 16)
            status = response.status.code
        } catch {
            // A health check has two answers: anything but a 200 is "not healthy" (1), as container
            // runtimes read it, and the reason goes to the log they keep.
            FileHandle.standardError.write(Data("huddle health: \(CommandFailure.unreachable(target, error).description)\n".utf8))
            throw ExitCode(1)
        }
        guard status == 200 else {
            FileHandle.standardError.write(Data("huddle health: \(target): \(status)\n".utf8))
            throw ExitCode(1)
        }
        print("healthy: \(target)")
    }

    /// The URL to ask: `/health` on a server URL that names no path.
    static func healthURL(_ url: String) -> String {
        guard let parsed = URL(string: url), parsed.path.isEmpty || parsed.path == "/" else { return url }
        return url.trimmingSuffix("/") + "/health"
    }

    /// `/health` of the server that `huddle serve` would start in this environment.
    static func localURL(environment: [String: String]) -> String {
        let variable = { (option: String) in environment[EnvironmentOptions.variable(forOption: option)].flatMap { $0.isEmpty ? nil : $0 } }
        let scheme = variable("tls-certificate") == nil ? "http" : "https"
        var host = variable("host") ?? "127.0.0.1"
        if ["0.0.0.0", "::", "[::]"].contains(host) { host = "127.0.0.1" }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        return "\(scheme)://\(host):\(variable("port") ?? "8443")/health"
    }
}
