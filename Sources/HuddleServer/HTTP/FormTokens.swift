import Crypto
import Foundation
import HuddleCore
import Hummingbird

/// The CSRF tokens of the pages' forms: each browser gets a random cookie, and each form it is shown carries
/// a MAC of that cookie under a key of this server's, which ``SiteGuard`` checks when a form is posted.
///
/// A site that cannot set cookies for this host cannot post a form here. A page on another port of the same
/// host can (cookies ignore ports): it could plant a cookie and token that it fetched itself. Such a page
/// is another origin, which ``SiteGuard`` refuses before the token is looked at; the token is the second
/// lock, for browsers that send no `Origin`. The key lives as long as the process: a form shown before a
/// restart, or by another server behind the same address, is refused once and works when the page is
/// loaded again.
struct FormTokens: Sendable {
    static let cookieName = "huddle-csrf"
    static let fieldName = "csrf"

    /// The MAC key's bytes (`SymmetricKey` is not `Sendable`).
    private let key: [UInt8]
    /// Whether the cookie is `Secure` (a TLS port).
    let secureCookies: Bool

    init(secureCookies: Bool, key: [UInt8] = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }) {
        self.key = key
        self.secureCookies = secureCookies
    }

    /// The token a page's forms carry for the request's browser, and the cookie to set when the browser
    /// has none yet.
    func issue(for request: Request) -> (token: String, setCookie: String?) {
        if let cookie = Self.browserCookie(request) { return (mac(cookie), nil) }
        let cookie = Secrets.randomHex(bytes: 16)
        return (mac(cookie), Cookie.header(Self.cookieName, cookie, secure: secureCookies))
    }

    /// Whether a posted form's token belongs to the browser that posted it.
    func isValid(_ token: String?, for request: Request) -> Bool {
        guard let token, let cookie = Self.browserCookie(request) else { return false }
        return Secrets.constantTimeEqual(token, mac(cookie))
    }

    /// 128 bits of the MAC: as hard to guess as the cookie, and never mistaken for a device's 64-digit token.
    private func mac(_ cookie: String) -> String {
        Array(HMAC<SHA256>.authenticationCode(for: Data("huddle form \(cookie)".utf8), using: SymmetricKey(data: key)).prefix(16)).lowercaseHex
    }

    /// The request's cookie, if it has the shape this server gives (32 hexadecimal digits).
    private static func browserCookie(_ request: Request) -> String? {
        guard let value = request.cookies[cookieName]?.value, value.utf8.count == 32,
            value.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) })
        else { return nil }
        return value
    }
}
