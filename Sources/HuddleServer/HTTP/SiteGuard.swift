import Foundation
import HTTPTypes
import Hummingbird

/// What keeps other web sites out of Huddle, for every route but the provider endpoint (which stands
/// before it in the chain and answers APNs clients whatever host they name), in one place:
///
/// - **Host**: a request naming a host the server is not configured for is refused (421), so that a page
///   whose name an attacker points at this server (DNS rebinding) reads and writes nothing.
/// - **Origin**: a request that changes state and says it comes from another origin (`Origin`, or
///   `Sec-Fetch-Site: cross-site`/`same-site`, which another port of the same host is) is refused (403).
///   Clients that send neither, as curl, SDKs and APNs clients do, are not browsers and pass.
/// - **JSON**: a `POST` to the JSON API that carries cookies and no `Authorization` must say it is JSON
///   (415): a page elsewhere can send `text/plain` without asking, never `application/json`.
/// - **Forms**: any other `POST` outside the JSON API is a form of the pages, and carries the token of
///   ``FormTokens`` (403 otherwise).
/// - **Answers**: every one is `nosniff`; every page gets a policy that runs only the server's own scripts
///   and styles and refuses to be framed.
struct SiteGuard: RouterMiddleware {
    typealias Context = HuddleRequestContext

    let hosts: AllowedHosts
    let formTokens: FormTokens

    /// Scripts, styles and connections from the server only; nothing inline, nothing framed, no referrer to other sites (not `no-referrer`: with it a browser sends `Origin: null` on its own forms).
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            let request = try await check(request)
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Answered here, so that error answers get the headers too.
            response = try HTTPErrorMiddleware.answer(error, request: request, context: context)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            response.headers[.xFrameOptions] = "DENY"
            response.headers[.referrerPolicy] = "same-origin"
        }
        return response
    }

    /// The request, once it passed every rule (a form's body read, to check its token).
    private func check(_ request: Request) async throws -> Request {
        guard hosts.allows(request.head.authority) else {
            throw APIError(
                .misdirected,
                "this server does not answer to the host \"\(String((request.head.authority ?? "").prefix(100)))\": "
                    + "start huddle serve with --public-host NAME to add a name")
        }
        guard [.post, .put, .patch, .delete].contains(request.method) else { return request }
        try Self.checkSameOrigin(request)
        guard request.method == .post else { return request }
        let mediaType = request.headers[.contentType].map(Self.mediaType) ?? ""
        if request.uri.path.hasPrefix("/v1/") {
            if request.headers[.cookie] != nil, request.headers[.authorization] == nil, mediaType != "application/json" {
                throw APIError(
                    .unsupportedMediaType,
                    "a request signed in by cookie must send Content-Type: application/json (or use Authorization: Bearer)")
            }
            return request
        }
        // JSON cannot come from another site without the browser asking first (a preflight this server never
        // allows); anything else is a form, whatever it says it is.
        guard mediaType != "application/json" else { return request }
        var request = request
        let form = FormBody(String(buffer: try await request.collectBody(upTo: FormBody.maximumBytes)))
        guard formTokens.isValid(form[FormTokens.fieldName], for: request) else {
            throw APIError(.forbidden, "the form's token is missing or stale: load the page again and send it from there")
        }
        return request
    }

    /// Refuses a request that a browser says comes from another origin than the one it addresses.
    private static func checkSameOrigin(_ request: Request) throws {
        if let site = request.headers[.secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            throw APIError(.forbidden, "refused: a request from another site (Sec-Fetch-Site: \(site.prefix(20))) may not change anything here")
        }
        guard let origin = request.headers[.origin]?.lowercased() else { return }
        // The host and port must be the ones the request addresses. The scheme is not compared (only
        // required to be a web one): behind a proxy that ends TLS the page is https and this server plain,
        // and no other site's page can be served from this host and port.
        let authority = ["http://", "https://"].first(where: origin.hasPrefix).map { origin.dropFirst($0.count) }
        guard let authority, let own = request.head.authority?.lowercased(), authority == own else {
            throw APIError(.forbidden, "refused: a request from the origin \"\(origin.prefix(100))\" may not change anything here")
        }
    }

    /// `application/json` of `Application/JSON; charset=utf-8`.
    private static func mediaType(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
}

/// The host names the device API and the pages answer to: loopback names, IP addresses (a browser that
/// sends an address as the host reached this server by it, with no name an attacker could point elsewhere),
/// the name the server listens on, and the names of `--public-host`.
struct AllowedHosts: Sendable {
    private let names: Set<String>
    private let anyHost: Bool

    init(publicHosts: [String], listeningHost: String) {
        anyHost = publicHosts.contains("*")
        names = Set((["localhost", listeningHost] + publicHosts).map { Self.normalized($0[...]) })
    }

    /// Whether `authority` (`host[:port]`) names this server; a request without one (HTTP/1.0) passes.
    func allows(_ authority: String?) -> Bool {
        guard !anyHost, let authority, !authority.isEmpty else { return true }
        let host = Self.host(of: authority)
        return Self.isIPAddress(host) || names.contains(Self.normalized(host))
    }

    /// The host of `host:port`, `[v6]:port`, or a host alone; anything after the host that is not a port
    /// stays with it, so that such a host matches no name.
    static func host(of authority: String) -> Substring {
        let end = authority.hasPrefix("[")
            ? authority.firstIndex(of: "]").map(authority.index(after:)) : authority.firstIndex(of: ":")
        guard let end, authority[end...].first == ":", authority[end...].dropFirst().allSatisfy({ ("0"..."9").contains($0) }) else {
            return authority[...]
        }
        return authority[..<end]
    }

    /// An IPv4 address (four numbers up to 255) or a bracketed IPv6 address.
    static func isIPAddress(_ host: Substring) -> Bool {
        if host.hasPrefix("[") {
            return host.hasSuffix("]") && host.count > 2
                && host.dropFirst().dropLast().unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy { ("0"..."9").contains($0) } && Int(part)! <= 255
        }
    }

    private static func normalized(_ host: Substring) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

extension HTTPField.Name {
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
