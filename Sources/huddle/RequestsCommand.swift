import ArgumentParser
import AsyncHTTPClient
import Foundation
import HuddleCore
import NIOCore
import NIOHTTP1
import NIOSSL

/// `huddle requests`: the provider requests a Huddle server received, one line each, from its request
/// inspector (`/v1/admin/requests`); with `--follow`, live as they arrive.
struct RequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "Show the provider requests a Huddle server received, and its answers; --follow for live ones.",
        discussion: """
            One line per request: time, status, reason, topic, device, apns-id, time taken. Colour on a terminal; \
            --format json prints each request as one JSON object per line, for scripts. In CI, --wait asserts: \
            it waits until --count requests match the filters (or --timeout passes), prints them, and exits 0 \
            when they came, 1 when they did not; --clear forgets the history first, so that a test sees its own.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Option(help: "The Huddle server.") var server = "http://127.0.0.1:8443"
    @Option(help: "The server's admin token (default: $HUDDLE_ADMIN_TOKEN).") var adminToken: String?
    @Flag(help: "Keep printing requests as they arrive.") var follow = false
    @Option(help: "text or json.") var format: Format = .text
    @Option(help: "Only this device token.") var device: String?
    @Option(help: "Only this apns-topic.") var topic: String?
    @Option(help: "Only this HTTP status.") var status: Int?
    @Option(help: "Only this APNs reason, e.g. BadDeviceToken.") var reason: String?
    @Option(help: "Only this apns-push-type (alert when none was sent).") var pushType: String?
    @Option(help: "Only this apns-id.") var apnsId: String?
    @Option(help: "Only the request answered with this apns-unique-id.") var uniqueId: String?
    @Option(help: "How many past requests to print first (newest last).") var last = 20
    @Flag(help: "Wait until --count requests match the filters; exit 1 if they do not within --timeout.") var wait = false
    @Option(help: "With --wait: how many requests to wait for.") var count = 1
    @Option(help: "With --wait: the most seconds to wait (up to 300).") var timeout = 30
    @Flag(help: "Forget the server's request history first (a test's own requests only, from then on).") var clear = false
    @Option(help: "A PEM CA certificate to trust (a test server's self-signed certificate).") var caCertificate: String?

    func run() async throws {
        guard let token = adminToken ?? ProcessInfo.processInfo.environment["HUDDLE_ADMIN_TOKEN"] else {
            throw ValidationError("the inspector needs the server's admin token: --admin-token or $HUDDLE_ADMIN_TOKEN")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caCertificate { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificate)) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        do {
            try await reportingFailures { try await show(client: client, token: token) }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    func validate() throws {
        if wait, follow { throw ValidationError("--wait and --follow do not go together") }
        if !(1...1000).contains(count) { throw ValidationError("--count: from 1 to 1000") }
        if !(0...300).contains(timeout) { throw ValidationError("--timeout: from 0 to 300 seconds") }
    }

    private func show(client: HTTPClient, token: String) async throws {
        let colour = format == .text && isatty(STDOUT_FILENO) != 0
        let base = server.trimmingSuffix("/") + "/v1/admin/requests"
        if clear {
            _ = try await AdminAPIClient(server: server, token: token, caCertificate: caCertificate).send(.DELETE, "/v1/admin/requests")
        }
        var query = [("limit", String(max(1, min(wait ? max(last, count) : last, 1000))))]
        let filters = [
            ("device", device), ("topic", topic), ("status", status.map(String.init)), ("reason", reason), ("push-type", pushType),
            ("apns-id", apnsId), ("unique-id", uniqueId),
        ]
        for (name, value) in filters {
            if let value { query.append((name, value)) }
        }
        let waitQuery = wait ? [("wait", String(timeout)), ("count", String(count))] : []
        let list = try JSONParser.parse(try await get(base + Self.query(query + waitQuery), token: token, client: client, stream: nil))
        guard case .array(let records)? = list["requests"] else { throw CommandFailure(.badInput, "\(base): not a list of requests") }
        for record in records.reversed() { Self.emit(line(record, colour: colour)) }
        if wait, case .integer(let found)? = list["wait"]?["found"], found < count {
            let described = filters.compactMap { name, value in value.map { "\(name) \($0)" } }.joined(separator: ", ")
            throw CommandFailure(
                .refused, "\(found) of the \(count) requests waited for\(described.isEmpty ? "" : " (\(described))") came within \(timeout) s")
        }
        guard follow else { return }
        guard case .integer(let last)? = list["last"] else { throw CommandFailure(.badInput, "\(base): no last request number") }
        let after = String(last)
        query.removeFirst()
        _ = try await get(base + "/stream" + Self.query(query + [("after", after)]), token: token, client: client) { data in
            guard let record = try? JSONParser.parse(data) else { return }
            Self.emit(line(record, colour: colour))
        }
    }

    /// GETs a URL with the admin token; for a stream, hands each event's data to `stream` until it ends.
    private func get(_ url: String, token: String, client: HTTPClient, stream: ((String) -> Void)?) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: stream == nil ? .seconds(30) : .hours(24 * 365))
        } catch {
            throw CommandFailure.unreachable(server, error)
        }
        guard response.status.code == 200 else {
            let body = String(buffer: try await response.body.collect(upTo: 1 << 16)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CommandFailure(.refused, "\(url): \(response.status.code) \(body)")
        }
        guard let stream else { return String(buffer: try await response.body.collect(upTo: 64 << 20)) }
        // Events end with a blank line. Each byte is looked at once, and an event may not grow past a bound.
        var pending: [UInt8] = []
        var scanned = 0
        for try await chunk in response.body {
            pending.append(contentsOf: chunk.readableBytesView)
            var start = 0
            while let end = Self.blankLine(in: pending, from: max(start, scanned - 1)) {
                let event = String(decoding: pending[start..<end], as: UTF8.self)
                for field in event.split(separator: "\n") where field.hasPrefix("data: ") { stream(String(field.dropFirst(6))) }
                start = end + 2
            }
            pending.removeFirst(start)
            scanned = pending.count
            guard pending.count <= Self.maximumEventBytes else {
                throw CommandFailure(.badInput, "\(url): an event of more than \(Self.maximumEventBytes) bytes")
            }
        }
        return ""
    }

    private func line(_ record: JSONValue, colour: Bool) -> String {
        if format == .json { return record.jsonText() }
        func text(_ path: String...) -> String {
            var value: JSONValue? = record
            for key in path { value = value?[key] }
            switch value {
            case .string(let string)?: return string
            case .integer(let number)?: return String(number)
            default: return ""
            }
        }
        let status = text("answer", "status")
        let micros = Double(text("durationMicroseconds")) ?? 0
        let time = text("receivedAt").split(separator: "T").last.map { String($0.prefix(12)) } ?? ""
        var statusField = status.padding(toLength: 3, withPad: " ", startingAt: 0)
        if colour { statusField = (status == "200" ? "\u{1B}[32m" : "\u{1B}[31m") + statusField + "\u{1B}[0m" }
        let device = String(text("deviceToken").prefix(12))
        return [
            time, statusField, text("answer", "reason").isEmpty ? "-" : text("answer", "reason"), text("topic"), device + "…",
            text("answer", "apnsID"), String(format: "%.1f ms", micros / 1000),
        ].joined(separator: "  ")
    }

    /// The longest event the stream may send: a request's record is a few kilobytes.
    static let maximumEventBytes = 1 << 20

    /// Where the first `\n\n` at or after `start` begins.
    static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
        var index = max(0, start)
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "\n"), bytes[index + 1] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return nil
    }

    /// Writes a line at once, not buffered: a script reading a pipe sees each request as it arrives.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func query(_ items: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery.map { "?" + $0 } ?? ""
    }
}
