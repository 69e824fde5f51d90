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
        guard let secret = Self.bearer(request) ?? Self.cookie(request, token: token) else {
            throw APIError(.unauthorized, "send the device secret as Authorization: Bearer <secret>")
        }
        guard let device = try await store.device(token: token), Self.constantTimeEqual(Self.hash(secret), device.secretHash),
            let session = try await centers.session(for: token)
        else { throw APIError(.unauthorized, "unknown device or wrong secret") }
        return (device, session)
    }

    /// Whether `secret` is the device's.
    func isSecret(_ secret: String, of token: String) async throws -> Bool {
        guard let device = try await store.device(token: token) else { return false }
        return Self.constantTimeEqual(Self.hash(secret), device.secretHash)
    }

    /// The name of the cookie that keeps a device's secret for the web page.
    static func cookieName(token: String) -> String { "huddle-\(token)" }

    private static func bearer(_ request: Request) -> String? {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else { return nil }
        return String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    private static func cookie(_ request: Request, token: String) -> String? {
        request.cookies[cookieName(token: token)]?.value
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func hash(_ secret: String) -> String {
        hex(Array(SHA256.hash(data: Data(secret.utf8))))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
