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
/// page trades its secret. No page shows a device's secret, except to the person who has
/// just created that device: in the address of its center, which its page then takes out.
struct HomeController {
    let store: any NotificationStore
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

    /// The "Create and open" button: a new device, then its center, its secret in the address's fragment
    /// (which the browser never sends back) as `huddle serve --demo` prints it.
    @Sendable func createDevice(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let form = try await FormBody.read(request)
        let isAdmin = isAdmin(request)
        if let registrationToken = configuration.registrationToken, !isAdmin {
            guard try admin.attempts.verify(form["registrationToken"], is: registrationToken, kind: .registration, client: context.clientAddress) else {
                return try await page(for: request, problem: .wrongRegistrationToken)
            }
        }
        let name = DisplayText.cutName((form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        let registration = DeviceRegistration(store: store, clock: configuration.clock, maximumDevices: configuration.limits.devices)
        let created: (device: DeviceRecord, secret: String)
        do {
            created = try await registration.register(name: name.isEmpty ? DeviceRegistration.defaultName : name)
        } catch let error as StoreError where error.code == .full {
            return try await page(for: request, problem: .serverFull)
        }
        var location = "/devices/\(created.device.token)"
        if let languages = form["languages"], PageLanguages.isLanguageTag(languages) { location += "?languages=\(languages)" }
        return Response(status: .seeOther, headers: [.location: location + "#secret=\(created.secret)", .cacheControl: "no-store"])
    }

    @Sendable func openAdminSession(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let form = try await FormBody.read(request)
        let session: String
        do {
            session = try admin.signIn(presenting: form["adminToken"] ?? "", context: context)
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
            return Response(status: .seeOther, headers: [.location: center])
        }
        let session = cookie(DeviceAuthorization.cookieName(token: device.token), DeviceAuthorization.webSession(of: device))
        return Response(status: .seeOther, headers: [.location: center, .setCookie: session])
    }

    // MARK: The page

    private func page(for request: Request, problem: HomePage.Problem? = nil) async throws -> Response {
        let isAdmin = isAdmin(request)
        var devices: [HomePage.ListedDevice] = []
        if isAdmin {
            let origin = WebController.origin(of: request, tls: configuration.tlsCertificatePath != nil, fallback: configuration.listeningAddress)
            for device in try await store.devices(newestFirst: Self.listedDevices) {
                let topic = try await store.apps(device: device.token).first?.topic ?? "com.example.app"
                devices.append(HomePage.ListedDevice(
                    record: device,
                    commands: PushCommands(origin: origin, token: device.token, topic: topic, developmentMode: configuration.developmentMode)))
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
        Cookie.header(name, value, secure: configuration.tlsCertificatePath != nil, maxAge: maxAge)
    }

    /// Whether the request carries an admin session.
    func isAdmin(_ request: Request) -> Bool { admin.isSignedIn(request) }
}
