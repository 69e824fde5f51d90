public import Crypto
public import Foundation
public import HuddleCore

/// What is wrong with a push request's sender identification (RFC 8292), before each service words it.
public enum VAPIDFault: Error, Sendable, Hashable {
    /// No `Authorization` header.
    case missing
    /// An `Authorization` scheme other than `vapid` (or, where the service takes the legacy form, `WebPush`).
    case unknownScheme
    /// A `vapid` header without `t=`, or a header that does not parse.
    case malformedHeader
    /// No public key: no `k=` (or, in the legacy form, no `Crypto-Key: p256ecdsa=`).
    case missingPublicKey
    case publicKey(PublicKeyFault)
    /// The token is not a JWT, or its header or claims are not JSON, or not ES256, or a claim has the wrong type.
    case malformedToken(String)
    /// The signature does not verify with `k`.
    case badSignature
    case missingExpiry
    /// `exp` is past.
    case expired
    /// `exp` is more than 24 hours after the request.
    case expiresTooLate
    /// `aud` is not the origin of the endpoint the request was sent to.
    case wrongAudience
    /// `sub` is not a contact URI the service takes.
    case badSubject
    /// `k` is not the `applicationServerKey` the subscription was made with.
    case keyMismatch

    public enum PublicKeyFault: Sendable, Hashable {
        case notBase64URL, wrongLength(Int), compressed, notOnCurve
    }
}

/// A push request's `Authorization` (and, in the legacy form, `Crypto-Key`), read but not yet verified.
public struct VAPIDCredentials: Sendable {
    /// How the credentials came: `vapid t=…, k=…` (RFC 8292 §3), or the drafts' `WebPush <JWT>` with the key in
    /// `Crypto-Key: p256ecdsa=…`.
    public enum Form: String, Sendable, Hashable { case vapid, legacy }

    public let form: Form
    public let token: String
    public let publicKey: Data

    /// The longest `Authorization` read: a token with ordinary claims is under 400 characters.
    public static let maximumHeaderLength = 2048

    /// - Parameter takesLegacyForm: whether the drafts' `WebPush <JWT>` (and `Bearer`) with `Crypto-Key: p256ecdsa=`
    ///   is read; where it is not, the scheme is refused before anything of it is read.
    public init(authorization: String?, cryptoKey: String?, takesLegacyForm: Bool = true) throws(VAPIDFault) {
        guard let authorization, !authorization.isEmpty else { throw .missing }
        guard authorization.utf8.count <= Self.maximumHeaderLength else { throw .malformedHeader }
        let trimmed = authorization.drop { $0 == " " }
        let scheme = trimmed.prefix { $0 != " " }.lowercased()
        let rest = trimmed.dropFirst(scheme.count).drop { $0 == " " }
        switch scheme {
        case "vapid":
            var parameters: [String: Substring] = [:]
            for part in rest.split(separator: ",") {
                let item = part.trimmingCharacters(in: .whitespaces)
                guard let equals = item.firstIndex(of: "=") else { throw .malformedHeader }
                parameters[item[..<equals].lowercased()] = Substring(item[item.index(after: equals)...])
            }
            guard let token = parameters["t"], !token.isEmpty else { throw .malformedHeader }
            guard let key = parameters["k"], !key.isEmpty else { throw .missingPublicKey }
            self.init(form: .vapid, token: String(token), key: key)
        case "webpush", "bearer":
            guard takesLegacyForm else { throw .unknownScheme }
            guard !rest.isEmpty, !rest.contains(" ") else { throw .malformedHeader }
            guard let key = Self.parameter("p256ecdsa", inCryptoKey: cryptoKey) else { throw .missingPublicKey }
            self.init(form: .legacy, token: String(rest), key: key)
        default:
            throw .unknownScheme
        }
        // The key's form is checked here; whether it is a point of the curve, when the token is verified (a token
        // verified before was verified with these very bytes).
        try Self.checkKeyForm(publicKeyText)
    }

    private let publicKeyText: Substring

    private init(form: Form, token: String, key: Substring) {
        self.form = form
        self.token = token
        self.publicKeyText = key
        self.publicKey = Base64URL.decode(key.trimmingSuffix("=")) ?? Data()
    }

    /// A `Crypto-Key` parameter (`dh`, `p256ecdsa`): the header's parts are separated by `;` or `,`.
    public static func parameter(_ name: String, inCryptoKey header: String?) -> Substring? {
        guard let header else { return nil }
        for part in header.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let item = part.drop { $0 == " " }
            guard let equals = item.firstIndex(of: "="), item[..<equals].lowercased() == name else { continue }
            let value = item[item.index(after: equals)...].trimmingSuffix(" ")
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? value.dropFirst().dropLast() : value
        }
        return nil
    }

    /// The key as a P-256 public key, after the checks FCM words one by one.
    static func decodeKey(_ text: Substring) throws(VAPIDFault) -> P256.Signing.PublicKey {
        let bytes = try checkKeyForm(text)
        guard let key = try? P256.Signing.PublicKey(x963Representation: bytes) else { throw .publicKey(.notOnCurve) }
        return key
    }

    /// The key's bytes, if they are base64url of 65 bytes in uncompressed form.
    @discardableResult
    static func checkKeyForm(_ text: Substring) throws(VAPIDFault) -> Data {
        guard text.utf8.allSatisfy(Self.isBase64URLByte), let bytes = Base64URL.decode(text.trimmingSuffix("=")) else {
            throw .publicKey(.notBase64URL)
        }
        guard bytes.count == 65 else { throw .publicKey(.wrongLength(bytes.count)) }
        guard bytes.first == 4 else { throw .publicKey(.compressed) }
        return bytes
    }

    static func isBase64URLByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F || byte == 0x3D
    }
}

/// A VAPID token's claims (RFC 8292 §2), after its signature verified.
public struct VAPIDClaims: Sendable, Hashable {
    public var audience: String
    public var expiresAt: Int64
    public var subject: String?

    public init(audience: String, expiresAt: Int64, subject: String?) {
        self.audience = audience
        self.expiresAt = expiresAt
        self.subject = subject
    }

    /// As the request inspector shows them.
    public var json: JSONValue {
        var object = JSONObject([("aud", .string(audience)), ("exp", .integer(expiresAt))])
        if let subject { object["sub"] = .string(subject) }
        return .object(object)
    }
}

extension VAPIDCredentials {
    /// The longest token read.
    public static let maximumTokenLength = 1536

    /// Verifies the token with the credentials' key and reads its claims; the checks of the claims against a request
    /// are ``VAPIDClaims/check(service:audience:now:)``.
    public func verifiedClaims() throws(VAPIDFault) -> VAPIDClaims {
        let key = try Self.decodeKey(publicKeyText)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= Self.maximumTokenLength, parts.count == 3 else { throw .malformedToken("the token is not three base64url parts") }
        guard let headerData = Base64URL.decode(parts[0]), let header = try? JSONParser.parse(headerData), case .object = header else {
            throw .malformedToken("the token's header is not base64url JSON")
        }
        guard header["alg"] == "ES256" else { throw .malformedToken("the token's alg is not ES256") }
        guard let signatureBytes = Base64URL.decode(parts[2]), let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.isValidSignature(signature, for: SHA256.hash(data: Data("\(parts[0]).\(parts[1])".utf8)))
        else { throw .badSignature }
        guard let claimsData = Base64URL.decode(parts[1]), let claims = try? JSONParser.parse(claimsData), case .object = claims else {
            throw .malformedToken("the token's claims are not base64url JSON")
        }
        guard case .string(let audience)? = claims["aud"] else { throw .malformedToken("aud is not a string") }
        let expiresAt: Int64
        switch claims["exp"] {
        case nil: throw .missingExpiry
        case .integer(let seconds)?: expiresAt = seconds
        case .double(let seconds)? where seconds.isFinite && abs(seconds) < 1e15: expiresAt = Int64(seconds)
        default: throw .malformedToken("exp is not a number")
        }
        let subject: String?
        switch claims["sub"] {
        case nil, .null?: subject = nil
        case .string(let text)?: subject = text
        default: throw .malformedToken("sub is not a string")
        }
        return VAPIDClaims(audience: audience, expiresAt: expiresAt, subject: subject)
    }

    /// Makes a `vapid t=…, k=…` header, as an application server does (`huddle send --web-push`, tests).
    public static func authorization(audience: String, expiresAt: Int64, subject: String?, key: P256.Signing.PrivateKey) throws -> String {
        var claims = JSONObject([("aud", .string(audience)), ("exp", .integer(expiresAt))])
        if let subject { claims["sub"] = .string(subject) }
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let body = Base64URL.encode(Data(JSONValue.object(claims).jsonText().utf8))
        let signature = try key.signature(for: SHA256.hash(data: Data("\(header).\(body)".utf8)))
        return "vapid t=\(header).\(body).\(Base64URL.encode(signature.rawRepresentation)), k=\(Base64URL.encode(key.publicKey.x963Representation))"
    }
}

extension VAPIDClaims {
    /// The most a token may be valid for after the request (RFC 8292 §2).
    public static let longestValidity: Int64 = 24 * 60 * 60
    /// How late Mozilla's check of `exp` allows (jsonwebtoken's default leeway).
    public static let mozillaLeeway: Int64 = 60

    /// The claims' checks as `service` makes them for a request to an endpoint of origin `audience` at `now`.
    public func check(service: WebPushService, audience expected: String, now: Date) throws(VAPIDFault) {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        switch service {
        // Compared without arithmetic on `exp`: a stranger's claim may be any 64-bit integer, and a sum or difference
        // with it would trap.
        case .mozilla:
            // autopush-rs: the signature and exp (with leeway), then aud, then the 24 hours.
            guard expiresAt >= seconds - Self.mozillaLeeway else { throw .expired }
            guard audience == expected else { throw .wrongAudience }
            guard expiresAt <= seconds + Self.longestValidity else { throw .expiresTooLate }
        case .apple, .fcm:
            guard audience == expected else { throw .wrongAudience }
            guard expiresAt > seconds else { throw .expired }
            guard expiresAt <= seconds + Self.longestValidity else { throw .expiresTooLate }
            if service == .apple, !Self.isContactApple(subject) { throw .badSubject }
        }
    }

    /// Apple refuses a token whose subject "isn't a URL or mailto:" (Apple's page). Senders report refusals of
    /// addresses at `localhost` and reserved names and of a `mailto:` with spaces, so a contact here is a `mailto:` of
    /// `local@domain.tld` or an `https:` URL of a dotted host, neither at a reserved name (docs/web-push.md).
    public static func isContactApple(_ subject: String?) -> Bool {
        guard let subject, subject.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { return false }
        let host: Substring
        if subject.hasPrefix("mailto:") {
            let address = subject.dropFirst(7)
            guard let at = address.lastIndex(of: "@"), at != address.startIndex else { return false }
            host = address[address.index(after: at)...]
        } else if subject.hasPrefix("https://") {
            host = subject.dropFirst(8).prefix { $0 != "/" && $0 != ":" && $0 != "?" && $0 != "#" }
        } else {
            return false
        }
        let labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let last = labels.last else { return false }
        return !["localhost", "invalid", "local", "test", "example"].contains(String(last))
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ character: Character) -> Substring {
        var text = self
        while text.last == character { text = text.dropLast() }
        return text
    }
}
