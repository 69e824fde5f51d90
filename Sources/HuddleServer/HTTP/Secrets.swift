import Crypto
import Foundation
import HuddleCore
import Hummingbird

/// The server's handling of secrets and tokens, for every kind (device secrets, admin and other tokens,
/// sessions, form tokens): made from the system's random generator, stored as hashes, compared in constant
/// time.
enum Secrets {
    /// The bearer token of `Authorization: Bearer <token>`, if the request has one.
    static func bearer(_ request: Request) -> String? {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else { return nil }
        return String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    /// `bytes` random bytes from the system's generator, as lowercase hexadecimal.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }.lowercaseHex
    }

    /// How a secret is stored: its SHA-256, in hexadecimal.
    static func hash(_ secret: String) -> String {
        Array(SHA256.hash(data: Data(secret.utf8))).lowercaseHex
    }

    /// Whether two texts are equal, taking as long whatever they hold (compare hashes, so that their
    /// lengths are equal too).
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
