import Foundation
import HuddleWebPush
import Synchronization

/// VAPID tokens whose signature verified, with their claims. A sender signs a token once and pushes with it for hours
/// (Chrome's own sender for 12), and an ES256 verification costs more than the rest of a push: a token seen with the
/// same key is not verified again. The claims' checks against each request (`aud`, `exp`, `sub`) still run on every
/// push. Bounded: emptied when full, so a stranger's stream of tokens costs memory no longer than the bound.
final class VerifiedTokens: Sendable {
    /// The most tokens kept.
    static let maximumCount = 4096

    private let claims = Mutex<[String: VAPIDClaims]>([:])

    /// The claims of `credentials`, verified now or before.
    /// - Throws: ``VAPIDFault`` as ``VAPIDCredentials/verifiedClaims()`` does.
    func claims(of credentials: VAPIDCredentials) throws(VAPIDFault) -> VAPIDClaims {
        let key = credentials.token + " " + credentials.publicKey.base64EncodedString()
        if let known = claims.withLock({ $0[key] }) { return known }
        let verified = try credentials.verifiedClaims()
        claims.withLock { claims in
            if claims.count >= Self.maximumCount { claims.removeAll(keepingCapacity: true) }
            claims[key] = verified
        }
        return verified
    }
}
