import Foundation
import HTTPTypes
import HuddleCore
import Hummingbird
import NIOCore

/// The Notification Center in the browser: `GET /devices/{token}` renders the center on the server and
/// its script follows the live stream. The device secret is asked once and kept in a cookie. An Android phone's page
/// shows its shade instead, which the script fetches again (`GET /devices/{token}/shade`) when the stream says the
/// center changed.
struct WebController {
    let centers: DeviceCenters
    let store: any NotificationStore
    let pages: WebPages
    /// Whether the port speaks TLS: its cookies are then `Secure`, never sent over plain HTTP.
    let secureCookies: Bool
    /// Whether pushes need no provider token, for the first-push commands the page shows.
    let developmentMode: Bool
    /// The address the server listens on, for a request that does not say which host it asked for.
    let listeningAddress: String
    let formTokens: FormTokens
    /// The device's time, which its Live Activities go stale and end by.
    var clock: @Sendable () -> Date = { Date() }

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.get("/devices/:token", use: page)
        router.get("/devices/:token/shade", use: shade)
        router.get("/devices/:token/session", use: signIn)
        router.post("/devices/:token/session", use: openSession)
        router.get("/static/:file", use: asset)
        router.get("/favicon.ico") { _, _ in try Self.icon("favicon.ico", type: "image/x-icon") }
        router.get("/favicon.svg") { _, _ in try Self.icon("favicon.svg", type: "image/svg+xml") }
    }

    @Sendable func page(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let device: DeviceRecord
        let session: DeviceSession
        do {
            (device, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        } catch let error as APIError where error.kind == .unauthorized {
            return unlockPage(request, token: token, failed: false)
        }
        let viewer = Viewer(languages: PageLanguages.requested(by: request), locked: try request.viewer().locked)
        if device.platform.isAndroid {
            let content = try await session.shade(for: viewer)
            // The first-push commands are APNs pushes, which an Android phone refuses: the page does not show them.
            let commands = PushCommands(
                origin: Self.origin(of: request, tls: secureCookies, fallback: listeningAddress), token: token, topic: PushCommands.topic(among: []),
                developmentMode: developmentMode)
            let page = CenterPage(
                token: token, deviceName: device.name, viewer: viewer, isEmpty: content.shade.entries.isEmpty, change: content.change,
                commands: commands, events: content.events,
                shadeHTML: pages.shade(content.shade, languages: viewer.languages, change: content.change, now: clock()))
            return Self.html(pages.page(page, groupsHTML: ""))
        }
        let content = await session.page(for: viewer, at: clock())
        let apps = content.apps
        let commands = PushCommands(
            origin: Self.origin(of: request, tls: secureCookies, fallback: listeningAddress), token: token,
            topic: PushCommands.topic(among: apps), developmentMode: developmentMode, hasApps: !apps.isEmpty)
        let page = CenterPage(
            token: token, deviceName: device.name, viewer: viewer, isEmpty: content.groupsHTML.isEmpty, change: content.change,
            commands: commands, events: content.events, activities: content.activities, deviceHTML: content.deviceHTML, layout: content.layout)
        return Self.html(pages.page(page, groupsHTML: content.groupsHTML))
    }

    /// An Android phone's shade alone, as its page shows it (`?locked=`, `?languages=` as the page takes them): what the
    /// page's script puts in place of its own when the device's stream says the center changed. Signed in as the page
    /// is, by the device's cookie or its secret; without either it is refused (401) rather than answered with the
    /// page's form, which has no place inside the page. An iPhone has no shade (404): its stream carries its stacks.
    @Sendable func shade(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        guard device.platform.isAndroid else {
            throw APIError(.notFound, "this device is an iPhone: it has no Android shade (its page's stream carries its stacks)")
        }
        let viewer = Viewer(languages: PageLanguages.requested(by: request), locked: try request.viewer().locked)
        let content = try await session.shade(for: viewer)
        return Self.html(pages.shade(content.shade, languages: viewer.languages, change: content.change, now: clock()))
    }

    /// The form that trades a device's secret for its cookie, at the address it posts to: a page of its own,
    /// answered 200, for links that sign in (`huddle serve --demo` prints `/devices/<token>/session#secret=…`,
    /// whose script trades the fragment and opens the center). The center itself asked for without the
    /// cookie answers the same form with 401, which a browser logs as an error before any script runs.
    @Sendable func signIn(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        unlockPage(request, token: try context.parameters.require("token").lowercased(), failed: false, status: .ok)
    }

    /// Trades the secret (a form's `secret=…`, or JSON `{"secret": "…"}`) for a cookie.
    @Sendable func openSession(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let body = String(buffer: try await request.collectBody(limit: FormBody.maximumBytes))
        let isForm = FormBody.isForm(request)
        let secret: String?
        if isForm {
            secret = FormBody(body)["secret"]
        } else {
            secret = try? JSONReader(JSONParser.parse(body)).member("secret").string()
        }
        guard let secret, let device = try await DeviceAuthorization(store: store, centers: centers).device(token, ifSecretIs: secret) else {
            if isForm { return unlockPage(request, token: token, failed: true) }
            throw APIError(.unauthorized, "unknown device or wrong secret")
        }
        var headers: HTTPFields = [
            .setCookie: Cookie.header(
                DeviceAuthorization.cookieName(token: token), DeviceAuthorization.webSession(of: device), secure: secureCookies,
                maxAge: DeviceAuthorization.webSessionLifetime)
        ]
        guard isForm else { return Response(status: .noContent, headers: headers) }
        headers[.location] = "/devices/\(token)"
        return Response(status: .seeOther, headers: headers)
    }

    @Sendable func asset(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let types = [
            "app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
            "home.js": "text/javascript; charset=utf-8", "requests.js": "text/javascript; charset=utf-8",
            "unlock.js": "text/javascript; charset=utf-8",
        ]
        guard let type = types[file],
            let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Web"),
            let data = try? Data(contentsOf: url)
        else { throw APIError(.notFound, "no file \(file)") }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `scheme://host:port` as the browser reached the server, for commands the page shows: the request's
    /// `Host` when it is a plain host and port, else the address the server listens on.
    static func origin(of request: Request, tls: Bool, fallback: String) -> String {
        let scheme = tls ? "https" : "http"
        guard let authority = request.head.authority, !authority.isEmpty, authority.utf8.count <= 255,
            authority.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-:[]".unicodeScalars.contains($0)) })
        else { return "\(scheme)://\(fallback)" }
        return "\(scheme)://\(authority)"
    }

    /// The pages' icon (drawn by `Tools/generate-favicon.py`), at the address a browser asks for by itself
    /// (`/favicon.ico`) and, drawn to any size, the one the pages link. A day in the browser's cache: it
    /// changes with a release, if ever.
    private static func icon(_ file: String, type: String) throws -> Response {
        guard let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Web"), let data = try? Data(contentsOf: url) else {
            throw APIError(.notFound, "no file \(file)")
        }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "max-age=86400"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A page (``SiteGuard`` adds its security headers, as to every page).
    static func html(_ text: String, status: HTTPResponse.Status = .ok, setCookie: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        if let setCookie { headers[.setCookie] = setCookie }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The form that asks for a device's secret, with its CSRF token: the answer to a page asked for without
    /// it, as the API's to a request without it.
    private func unlockPage(
        _ request: Request, token: String, failed: Bool, status: HTTPResponse.Status = APIError.Kind.unauthorized.status
    ) -> Response {
        let formToken = formTokens.issue(for: request)
        return Self.html(
            pages.unlock(token: token, failed: failed, languages: PageLanguages.requested(by: request), formToken: formToken.token),
            status: status, setCookie: formToken.setCookie)
    }
}
