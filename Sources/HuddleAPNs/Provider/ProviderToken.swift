import Crypto
public import Foundation
public import HuddleCore

/// A provider authentication token: the ES256 JSON Web Token APNs clients put in `authorization`.
///
/// Header `{"alg": "ES256", "kid": KEY_ID}`, claims `{"iss": TEAM_ID, "iat": SECONDS}`. Clients send `iat`
/// as an integer, a float or a string; all three are read.
public struct ProviderToken: Sendable, Hashable {
    public let text: String
    public let keyID: String
    public let teamID: String
    public let issuedAt: Date
    private let signingInput: Data
    private let signature: Data

    /// Reads a token without verifying it.
    /// - Throws: ``APNsReason/invalidProviderToken`` for anything that is not such a token.
    public init(parsing text: String) throws(APNsReason) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONParser.parse(headerData), let claims = try? JSONParser.parse(claimsData),
            header["alg"] == "ES256", case .string(let keyID)? = header["kid"],
            case .string(let teamID)? = claims["iss"], let issuedAt = Self.seconds(claims["iat"])
        else { throw .invalidProviderToken }
        self.text = text
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = Date(timeIntervalSince1970: issuedAt)
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    /// Whether the token was signed by the private half of `publicKeyPEM` (a P-256 key).
    public func isSigned(byPublicKeyPEM publicKeyPEM: String) -> Bool {
        guard let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        return key.isValidSignature(signature, for: SHA256.hash(data: signingInput))
    }

    /// Makes and signs a token, as `huddle send` and tests do.
    /// - Parameter privateKeyPEM: an Apple `.p8` key (PKCS #8 PEM) or a SEC 1 EC key PEM.
    public static func sign(keyID: String, teamID: String, issuedAt: Date, privateKeyPEM: String) throws -> String {
        let key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"\#(keyID)","typ":"JWT"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"iss":"\#(teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        let signature = try key.signature(for: SHA256.hash(data: Data("\(header).\(claims)".utf8)))
        return "\(header).\(claims).\(Base64URL.encode(signature.rawRepresentation))"
    }

    /// The latest `iat` read: the year 9999. Anything later (or NaN, an infinity, a huge number) is not a
    /// time: it would trap wherever a date is converted to an integer, and no clock writes it.
    static let latestIssuedAt: Double = 253_402_300_799

    /// `iat` in seconds since 1970, if it is a number (or a numeric string) between 1970 and ``latestIssuedAt``.
    private static func seconds(_ value: JSONValue?) -> Double? {
        let seconds: Double? = switch value {
        case .integer(let integer)?: Double(integer)
        case .double(let double)?: double
        case .string(let string)?: Double(string)
        default: nil
        }
        guard let seconds, seconds.isFinite, (0...latestIssuedAt).contains(seconds) else { return nil }
        return seconds
    }
}

extension ProviderToken {
    /// A token's age at `now` in whole seconds, as the request inspector shows it: a stranger's `iat` and any clock
    /// (NaN, infinities, far years) give a number, never a trap.
    public static func ageSeconds(issuedAt: Date, now: Date) -> Int64 {
        Int64(saturating: now.timeIntervalSince(issuedAt).rounded(.down))
    }

    /// What the request inspector shows of the token a request presented, verified or not (its `providerToken`
    /// member): `{"keyID", "teamID", "ageSeconds"}`, the age when the token's `iat` is known. The token itself is
    /// never shown.
    public static func inspectorJSON(keyID: String, issuer: String, issuedAt: Date?, now: Date) -> JSONValue {
        var token = JSONObject([("keyID", .string(keyID)), ("teamID", .string(issuer))])
        if let issuedAt { token["ageSeconds"] = .integer(ageSeconds(issuedAt: issuedAt, now: now)) }
        return .object(token)
    }
}
