import Foundation
import HuddleWebPush

/// A push's `Authorization` and `Crypto-Key` from arbitrary bytes (split at the first newline): whatever they are, reading,
/// verifying and checking them ends in credentials or a named fault, and claims that verified pass or fail each
/// service's checks without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let authorization = parts.first.map(String.init)
    let cryptoKey = parts.count > 1 ? String(parts[1]) : nil
    guard let credentials = try? VAPIDCredentials(authorization: authorization, cryptoKey: cryptoKey) else { return 0 }
    precondition(credentials.publicKey.count == 65)
    guard let claims = try? credentials.verifiedClaims() else { return 0 }
    for service in WebPushService.allCases {
        _ = try? claims.check(service: service, audience: "https://127.0.0.1:8443", now: Date(timeIntervalSince1970: 1_800_000_000))
    }
    return 0
}
