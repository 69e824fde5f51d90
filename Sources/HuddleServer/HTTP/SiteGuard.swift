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

    /// Scripts, styles and connections from the server only; nothing inline, nothing framed. (The pages'
    /// referrer policy is `same-origin`, not `no-referrer`: with that a browser sends `Origin: null` on the
    /// pages' own forms, which the origin rule would refuse.)
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
    static func checkSameOrigin(_ request: Request) throws {
        try checkSameOrigin(headers: request.headers, authority: request.head.authority)
    }

    /// ``checkSameOrigin(_:)`` of a request's fields and the authority it addresses, whatever carried it.
    static func checkSameOrigin(headers: HTTPFields, authority requested: String?) throws {
        if let site = headers[.secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            throw APIError(.forbidden, "refused: a request from another site (Sec-Fetch-Site: \(site.prefix(20))) may not change anything here")
        }
        guard let origin = headers[.origin]?.lowercased() else { return }
        // The host and port must be the ones the request addresses. The scheme is not compared (only
        // required to be a web one): behind a proxy that ends TLS the page is https and this server plain,
        // and no other site's page can be served from this host and port.
        let authority = ["http://", "https://"].first(where: origin.hasPrefix).map { origin.dropFirst($0.count) }
        guard let authority, let own = requested?.lowercased(), authority == own else {
            throw APIError(.forbidden, "refused: a request from the origin \"\(origin.prefix(100))\" may not change anything here")
        }
    }

    /// `application/json` of `Application/JSON; charset=utf-8`.
    private static func mediaType(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
}

extension HTTPField.Name {
    /// APNs' id of a request, which every answer of the provider API carries.
    static let apnsID = Self("apns-id")!
    static let secFetchSite = Self("Sec-Fetch-Site")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
