import AsyncHTTPClient
import Foundation
import HuddleCore
import NIOCore
import NIOHTTP1
import NIOSSL

/// A running Huddle server's admin API (`/v1/admin/…`), for the commands that change a server while it
/// runs: each call's refusal or silence is a ``CommandFailure`` that names the server.
struct AdminAPIClient {
    var server: String
    var token: String
    var caCertificate: String?

    /// Sends one request and gives the answer's body.
    /// - Throws: ``CommandFailure`` `.refused` with the status and the server's words for anything but 2xx,
    ///   `.unavailable` when nothing answers.
    func send(_ method: HTTPMethod, _ path: String, json: JSONValue? = nil) async throws -> String {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caCertificate { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificate)) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        defer { _ = client.shutdown() }
        let url = server.trimmingSuffix("/") + path
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json.jsonText()))
        }
        let response: HTTPClientResponse
        let body: String
        do {
            response = try await client.execute(request, timeout: .seconds(30))
            body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            throw CommandFailure.unreachable(server, error)
        }
        guard (200..<300).contains(response.status.code) else {
            throw CommandFailure(.refused, "\(method.rawValue) \(url): \(response.status.code) \(body.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return body
    }
}
