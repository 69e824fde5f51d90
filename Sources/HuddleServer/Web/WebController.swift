import Foundation
import HTTPTypes
import HuddleCore
import Hummingbird
import NIOCore

/// The Notification Center in the browser: `GET /devices/{token}` renders the center on the server and
/// its script follows the live stream. The device secret is asked once and kept in a cookie.
struct WebController {
    let centers: DeviceCenters
    let store: any NotificationStore
    let pages: WebPages
    /// Whether the port speaks TLS: its cookies are then `Secure`, never sent over plain HTTP.
    let secureCookies: Bool

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.get("/devices/:token", use: page)
        router.post("/devices/:token/session", use: openSession)
        router.get("/static/:file", use: asset)
    }

    @Sendable func page(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let device: DeviceRecord
        let session: DeviceSession
        do {
            (device, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        } catch let error as APIError where error.kind == .unauthorized {
            return Self.html(pages.unlock(token: token, failed: false), status: .unauthorized)
        }
        var viewer = try request.viewer()
        if request.uri.queryParameters["languages"] == nil { viewer = Viewer(languages: Self.acceptedLanguages(request), locked: viewer.locked) }
        let (groups, change, apps) = await session.page(for: viewer)
        let origin = "\(request.head.scheme ?? "http")://\(request.head.authority ?? "127.0.0.1:8443")"
        let page = CenterPage(
            token: token, deviceName: device.name, viewer: viewer, isEmpty: groups.isEmpty, change: change, origin: origin,
            exampleTopic: apps.first ?? "com.example.app")
        return Self.html(pages.page(page, groupsHTML: groups))
    }

    /// Trades the secret (a form's `secret=…`, or JSON `{"secret": "…"}`) for a cookie.
    @Sendable func openSession(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let body = String(buffer: try await request.collectBody(limit: 4096))
        let isForm = request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") ?? false
        let secret: String?
        if isForm {
            secret = body.split(separator: "&").lazy.compactMap { pair -> String? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0] == "secret" else { return nil }
                return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }.first
        } else {
            secret = try? JSONReader(JSONParser.parse(body)).member("secret").string()
        }
        guard let secret, let device = try await DeviceAuthorization(store: store, centers: centers).device(token, ifSecretIs: secret) else {
            if isForm { return Self.html(pages.unlock(token: token, failed: true), status: .unauthorized) }
            throw APIError(.unauthorized, "unknown device or wrong secret")
        }
        let cookie = "\(DeviceAuthorization.cookieName(token: token))=\(DeviceAuthorization.webSession(of: device))"
        var headers: HTTPFields = [
            .setCookie: cookie + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000" + (secureCookies ? "; Secure" : "")
        ]
        guard isForm else { return Response(status: .noContent, headers: headers) }
        headers[.location] = "/devices/\(token)"
        return Response(status: .seeOther, headers: headers)
    }

    @Sendable func asset(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let types = ["app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"]
        guard let type = types[file],
            let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Web"),
            let data = try? Data(contentsOf: url)
        else { throw APIError(.notFound, "no file \(file)") }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The browser's languages, most preferred first (`Accept-Language`, weights honoured).
    static func acceptedLanguages(_ request: Request) -> [String] {
        guard let header = request.headers[.acceptLanguage] else { return ["en"] }
        let weighted = header.split(separator: ",").enumerated().compactMap { index, item -> (String, Double, Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { return nil }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag, weight, index)
        }
        let languages = weighted.filter { $0.1 > 0 }.sorted { ($0.1, -$0.2) > ($1.1, -$1.2) }.map(\.0)
        return languages.isEmpty ? ["en"] : languages
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
