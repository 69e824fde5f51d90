import Crypto
import Foundation
import HTTPTypes
import HuddleCore
import Hummingbird
import NIOCore

/// The home page at `/`: creates a device in one click and opens its center, lists the server's devices
/// for a viewer who gave the admin token, links the demo, the OpenAPI document and the metrics.
///
/// The admin token is traded once, through a form, for a session cookie (``AdminAccess``), as a device's
/// page trades its secret. No page shows a device's secret.
struct HomeController {
    let store: any NotificationStore
    let centers: DeviceCenters
    let pages: WebPages
    let configuration: ServerConfiguration
    let admin: AdminAccess
    let formTokens: FormTokens

    /// The most devices the page lists, newest first.
    static let listedDevices = 50

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.get("/", use: home)
        router.post("/devices", use: createDevice)
        router.post("/admin/session", use: openAdminSession)
        router.post("/admin/session/end", use: closeAdminSession)
        router.post("/demo/session", use: openDemo)
    }

    @Sendable func home(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await page(for: request)
    }

    /// The "Create and open" button: a new device with the example app (``ExampleApp``), so that the commands
    /// its page shows work as shown, then its center, opened with the device's cookie. The cookie comes with
    /// the redirect, as the demo's does: the page that made the device is trusted with it, and a center asked
    /// for without it would first answer 401 (a red line in the browser's console) until a script signed in.
    /// Its secret is never shown: the cookie is all the browser needs.
    @Sendable func createDevice(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let form = try await FormBody.read(request)
        let isAdmin = isAdmin(request)
        if let registrationToken = configuration.registrationToken, !isAdmin {
            guard try await admin.attempts.verify(form["registrationToken"], is: registrationToken, kind: .registration, client: context.clientAddress) else {
                return try await page(for: request, problem: .wrongRegistrationToken)
            }
        }
        let name = DisplayText.cutName((form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        let registration = DeviceRegistration(store: store, clock: configuration.clock, maximumDevices: configuration.limits.devices)
        let created: DeviceRecord
        do {
            created = try await registration.register(name: name.isEmpty ? DeviceRegistration.defaultName : name).device
        } catch let error as StoreError where error.code == .full {
            return try await page(for: request, problem: .serverFull)
        }
        // Read (and its catalogs validated) before the store's transaction, which only stores it.
        let app = try ExampleApp.record()
        guard let session = try await centers.session(for: created.token) else {
            throw StoreError(.notFound, "the device just created is gone")
        }
        _ = try await session.updateApp(topic: app.topic, maximumApps: configuration.limits.appsPerDevice) { _ in app }
        let location = "/devices/\(created.token)" + Self.languagesQuery(form)
        return Response(status: .seeOther, headers: [
            .location: location, .cacheControl: "no-store",
            .setCookie: DeviceAuthorization.sessionCookie(for: created, secure: secureCookies),
        ])
    }

    @Sendable func openAdminSession(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let form = try await FormBody.read(request)
        let session: String
        do {
            session = try await admin.signIn(presenting: form["adminToken"] ?? "", context: context)
        } catch let error as APIError where error.kind == .unauthorized {
            return try await page(for: request, problem: .wrongAdminToken)
        }
        return redirectHome(form, cookie: cookie(AdminAccess.cookieName, session, maxAge: AdminAccess.sessionLifetime.components.seconds))
    }

    @Sendable func closeAdminSession(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        admin.signOut(request)
        return redirectHome(try await FormBody.read(request), cookie: cookie(AdminAccess.cookieName, "", maxAge: 0))
    }

    /// Opens the demo device's center without its secret, for a viewer the server trusts with it: anyone
    /// on a loopback-only server, or the admin. Others get the page that asks for the secret (the log has it).
    @Sendable func openDemo(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let form = try await FormBody.read(request)
        let center = "/devices/\(DemoDevice.token)" + Self.languagesQuery(form)
        guard configuration.demo, configuration.listensOnLoopbackOnly || isAdmin(request), let device = try await store.device(token: DemoDevice.token) else {
            return Response(status: .seeOther, headers: [.location: "/devices/\(DemoDevice.token)/session" + Self.languagesQuery(form)])
        }
        return Response(status: .seeOther, headers: [.location: center, .setCookie: DeviceAuthorization.sessionCookie(for: device, secure: secureCookies)])
    }

    // MARK: The page

    private func page(for request: Request, problem: HomePage.Problem? = nil) async throws -> Response {
        let isAdmin = isAdmin(request)
        var devices: [HomePage.ListedDevice] = []
        if isAdmin {
            let origin = WebController.origin(of: request, tls: configuration.servesTLS, fallback: configuration.listeningAddress)
            for device in try await store.devices(newestFirst: Self.listedDevices) {
                let apps = try await store.apps(device: device.token).map(\.topic)
                devices.append(HomePage.ListedDevice(
                    record: device,
                    commands: PushCommands(
                        origin: origin, token: device.token, topic: PushCommands.topic(among: apps),
                        developmentMode: configuration.developmentMode, hasApps: !apps.isEmpty)))
            }
        }
        let page = HomePage(
            languages: PageLanguages.requested(by: request), chosenLanguages: request.uri.queryParameters["languages"].map(String.init),
            needsRegistrationToken: configuration.registrationToken != nil && !isAdmin,
            admin: configuration.adminToken == nil ? .off : isAdmin ? .signedIn(devices) : .signedOut,
            demo: !configuration.demo ? .none : configuration.listensOnLoopbackOnly || isAdmin ? .oneClick : .asksForSecret, problem: problem,
            formToken: formTokens.issue(for: request))
        return WebController.html(pages.home(page), status: problem?.kind.status ?? .ok, setCookie: page.formToken.setCookie)
    }

    private func redirectHome(_ form: FormBody, cookie: String) -> Response {
        Response(status: .seeOther, headers: [.location: "/" + Self.languagesQuery(form), .setCookie: cookie])
    }

    /// `?languages=…` from a form's hidden field, so that a page posted in a language answers in it.
    private static func languagesQuery(_ form: FormBody) -> String {
        guard let languages = form["languages"], PageLanguages.isLanguageTag(languages) else { return "" }
        return "?languages=\(languages)"
    }

    private func cookie(_ name: String, _ value: String, maxAge: Int64? = nil) -> String {
        Cookie.header(name, value, secure: secureCookies, maxAge: maxAge)
    }

    /// Cookies go over TLS only when the port speaks it.
    private var secureCookies: Bool { configuration.servesTLS }

    /// Whether the request carries an admin session.
    func isAdmin(_ request: Request) -> Bool { admin.isSignedIn(request) }
}
