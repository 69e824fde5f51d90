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
        router.get("/devices/:token/web-apps", use: webApps)
        router.get("/devices/:token/session", use: signIn)
        router.post("/devices/:token/session", use: openSession)
        router.get("/static/:file", use: asset)
        router.get("/favicon.ico") { _, _ in try Self.icon("favicon.ico", type: "image/x-icon") }
        router.get("/favicon.svg") { _, _ in try Self.icon("favicon.svg", type: "image/svg+xml") }
    }

    @Sendable func page(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let authorization = DeviceAuthorization(store: store, centers: centers)
        let device: DeviceRecord
        let session: DeviceSession
        do {
            (device, session) = try await authorization.authorize(request, context)
        } catch let error as APIError where error.kind == .unauthorized {
            return unlockPage(request, token: token, failed: false, next: Self.pageAddress(of: request))
        }
        let viewer = Viewer(languages: PageLanguages.requested(by: request), locked: try request.viewer().locked)
        var companion: BesidePhone?
        if let besideToken = try Self.besideToken(request, page: token) {
            guard let (beside, besideSession) = try await authorization.signedIn(besideToken, request) else {
                // Signed in to the page's phone and not the other: its secret is asked for here, and the form comes back.
                return unlockPage(request, token: besideToken, failed: false, next: Self.pageAddress(of: request))
            }
            switch (device.kind.presentation, beside.kind.presentation) {
            case (.notificationCenter, .shade):
                guard let content = await besideSession.shade(for: viewer) else { throw StoreError(.corrupt, "an Android phone without a shade") }
                companion = BesidePhone(
                    token: besideToken, deviceName: beside.name, change: content.change,
                    shadeHTML: pages.shade(content.shade, languages: viewer.languages, change: content.change, now: clock()))
            case (.shade, .notificationCenter):
                // The iPhone's page carries the pair: its stacks, banner and activities want the whole script.
                return Response(status: .seeOther, headers: [.location: Self.pairAddress(iPhone: besideToken, android: token, request: request)])
            case (.notificationCenter, .notificationCenter), (.shade, .shade):
                throw APIError(
                    .badRequest,
                    "beside= names the Android phone to show beside an iPhone (or the iPhone beside an Android phone); "
                        + "these two devices are both \(device.kind.presentation == .shade ? "Android phones" : "iPhones")")
            }
        }
        if let content = await session.shade(for: viewer) {
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
            commands: commands, events: content.events, activities: content.activities, deviceHTML: content.deviceHTML, layout: content.layout,
            beside: companion)
        return Self.html(pages.page(page, groupsHTML: content.groupsHTML))
    }

    /// The device's web apps and their push subscriptions, with a form that subscribes one as a page would: signed in as
    /// the device's page is.
    @Sendable func webApps(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let device: DeviceRecord
        do {
            (device, _) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        } catch let error as APIError where error.kind == .unauthorized {
            return unlockPage(request, token: token, failed: false, next: Self.pageAddress(of: request))
        }
        let apps = try await store.apps(device: device.token)
        // The endpoints as the subscriptions API mints them (the origin the request reached), so both show one.
        let origin = WebPushEndpoint.origin(tls: secureCookies, authority: request.head.authority)
        return Self.html(pages.webApps(WebAppsPage(device: device, apps: apps, endpointOrigin: origin)))
    }

    /// The device `?beside=` names, to show beside the page's own; `nil` without one.
    /// - Throws: ``APIError`` `.badRequest` for a token no device could have, or the page's own.
    static func besideToken(_ request: Request, page token: String) throws -> String? {
        guard let text = request.uri.queryParameters["beside"] else { return nil }
        let beside = String(text).lowercased()
        guard !beside.isEmpty, beside.utf8.count <= 200, beside.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) })
        else { throw APIError(.badRequest, "beside= takes a device's token (letters and digits, at most 200)") }
        guard beside != token else { throw APIError(.badRequest, "beside= names this page's own device: name the other phone of the pair") }
        return beside
    }

    /// The iPhone's page of a pair, with the view (`languages`, `locked`) the request asked for.
    private static func pairAddress(iPhone: String, android: String, request: Request) -> String {
        var query = [("beside", android)]
        for name in ["languages", "locked"] {
            if let value = request.uri.queryParameters[Substring(name)] { query.append((name, String(value))) }
        }
        let encoded = query.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-,"))) ?? "")"
        }
        return "/devices/\(iPhone)?\(encoded.joined(separator: "&"))"
    }

    /// The page's own address (path and query), where its sign-in form sends the browser back.
    private static func pageAddress(of request: Request) -> String {
        request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
    }

    /// An Android phone's shade alone, as its page shows it (`?locked=`, `?languages=` as the page takes them): what the
    /// page's script puts in place of its own when the device's stream says the center changed. Signed in as the page
    /// is, by the device's cookie or its secret; without either it is refused (401) rather than answered with the
    /// page's form, which has no place inside the page. An iPhone has no shade (404): its stream carries its stacks.
    @Sendable func shade(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let viewer = Viewer(languages: PageLanguages.requested(by: request), locked: try request.viewer().locked)
        guard let content = await session.shade(for: viewer) else {
            throw APIError(.notFound, "this device is an iPhone: it has no Android shade (its page's stream carries its stacks)")
        }
        return Self.html(pages.shade(content.shade, languages: viewer.languages, change: content.change, now: clock()))
    }

    /// The form that trades a device's secret for its cookie, at the address it posts to: a page of its own,
    /// answered 200, for links that sign in (`huddle serve --demo` prints `/devices/<token>/session#secret=…`,
    /// whose script trades the fragment and opens the center). The center itself asked for without the
    /// cookie answers the same form with 401, which a browser logs as an error before any script runs.
    @Sendable func signIn(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let token = try context.parameters.require("token").lowercased()
        let next = request.uri.query.map { "/devices/\(token)?\($0)" }
        return unlockPage(request, token: token, failed: false, next: next, status: .ok)
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
        let next = isForm ? FormBody(body)["next"].flatMap(Self.pageAddress(returningTo:)) : nil
        guard let secret, let device = try await DeviceAuthorization(store: store, centers: centers).device(token, ifSecretIs: secret) else {
            if isForm { return unlockPage(request, token: token, failed: true, next: next) }
            throw APIError(.unauthorized, "unknown device or wrong secret")
        }
        var headers: HTTPFields = [
            .setCookie: DeviceAuthorization.sessionCookie(for: device, secure: secureCookies)
        ]
        guard isForm else { return Response(status: .noContent, headers: headers) }
        headers[.location] = next ?? "/devices/\(token)"
        return Response(status: .seeOther, headers: headers)
    }

    /// A form's `next`, when it is a page of this server's devices (a path, never another site's address): the page
    /// that asked for the secret, such as an iPhone's page with the Android phone beside it.
    static func pageAddress(returningTo next: String) -> String? {
        guard next.hasPrefix("/devices/"), next.utf8.count <= 1024,
            next.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 && $0 != "\\" }),
            !next.contains("//")
        else { return nil }
        return next
    }

    @Sendable func asset(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let types = [
            "app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
            "home.js": "text/javascript; charset=utf-8", "requests.js": "text/javascript; charset=utf-8",
            "unlock.js": "text/javascript; charset=utf-8", "web-apps.js": "text/javascript; charset=utf-8",
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
    /// - Parameter next: the page to go back to once signed in (``pageAddress(returningTo:)``); the device's own without it.
    private func unlockPage(
        _ request: Request, token: String, failed: Bool, next: String? = nil, status: HTTPResponse.Status = APIError.Kind.unauthorized.status
    ) -> Response {
        let formToken = formTokens.issue(for: request)
        return Self.html(
            pages.unlock(
                token: token, failed: failed, languages: PageLanguages.requested(by: request), formToken: formToken.token,
                next: next.flatMap(Self.pageAddress(returningTo:)) ?? "/devices/\(token)"),
            status: status, setCookie: formToken.setCookie)
    }
}
