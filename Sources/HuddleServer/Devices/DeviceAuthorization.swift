import Crypto
import Foundation
import HTTPTypes
import HuddleCore
import Hummingbird

/// Who may use a device's API and pages: whoever holds its secret, sent as `Authorization: Bearer
/// <secret>` by programs, or kept in a cookie by the web page (an `EventSource` cannot send headers).
struct DeviceAuthorization {
    let store: any NotificationStore
    let centers: DeviceCenters

    /// The device named in the path (`:token`), if the request carries its secret.
    func authorize(_ request: Request, _ context: HuddleRequestContext) async throws -> (DeviceRecord, DeviceSession) {
        let token = try context.parameters.require("token").lowercased()
        let secret = Secrets.bearer(request)
        let webSession = Self.cookie(request, token: token)
        guard secret != nil || webSession != nil else {
            throw APIError(.unauthorized, "send the device secret as Authorization: Bearer <secret>")
        }
        // The session holds the device's record: a request of a device in memory reads nothing from the store.
        guard let session = try await centers.session(for: token) else { throw APIError(.unauthorized, "unknown device or wrong secret") }
        let device = session.device
        let isAuthorized = if let secret {
            Secrets.constantTimeEqual(Secrets.hash(secret), device.secretHash)
        } else {
            Secrets.constantTimeEqual(webSession ?? "", Self.webSession(of: device))
        }
        guard isAuthorized else { throw APIError(.unauthorized, "unknown device or wrong secret") }
        return (device, session)
    }

    /// Another device than the path's, if the request carries the cookie of its web session: the Android phone a page
    /// shows beside an iPhone. Only the cookie counts: a bearer secret is the path's device's, never another's.
    func signedIn(_ token: String, _ request: Request) async throws -> (DeviceRecord, DeviceSession)? {
        guard let webSession = Self.cookie(request, token: token), let session = try await centers.session(for: token),
            Secrets.constantTimeEqual(webSession, Self.webSession(of: session.device))
        else { return nil }
        return (session.device, session)
    }

    /// The device, if `secret` is its secret.
    func device(_ token: String, ifSecretIs secret: String) async throws -> DeviceRecord? {
        guard let device = try await store.device(token: token), Secrets.constantTimeEqual(Secrets.hash(secret), device.secretHash) else {
            return nil
        }
        return device
    }

    /// The name of the cookie that keeps a device's web session for its page.
    static func cookieName(token: String) -> String { "huddle-\(token)" }

    /// How long a browser keeps a device's web session (seconds): a month, so that a page bookmarked
    /// opens without its secret again for a while.
    static let webSessionLifetime: Int64 = 30 * 24 * 3600

    /// The value of a device's web-session cookie: derived from the stored hash of its secret, so that a
    /// cookie read off a browser does not reveal the secret (which also works for the API and forever),
    /// every server sharing the store accepts it without shared state, and it is worthless once the
    /// device is gone.
    static func webSession(of device: DeviceRecord) -> String {
        let key = SymmetricKey(data: Data(device.secretHash.utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: Data("huddle web session \(device.token)".utf8), using: key)).lowercaseHex
    }

    /// The `Set-Cookie` of a device's web session, wherever one is opened (the sign-in form, a device made on the home
    /// page, the demo): one name, value and lifetime.
    static func sessionCookie(for device: DeviceRecord, secure: Bool) -> String {
        Cookie.header(cookieName(token: device.token), webSession(of: device), secure: secure, maxAge: webSessionLifetime)
    }

    private static func cookie(_ request: Request, token: String) -> String? {
        request.cookies[cookieName(token: token)]?.value
    }
}
