import Foundation
import HuddleAPNs

/// The provider endpoint's request checks and its provider-token parsing.
///
/// The input is lines: the method, the path, then header fields as `name: value` (the name lowercased,
/// as the HTTP layer hands them over). The `authorization` bearer token the checks pass, and the last
/// line as it is, are parsed as provider tokens and checked against a fixed public key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let method = lines.first.map(String.init) ?? ""
    let path = lines.dropFirst().first.map(String.init) ?? ""
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst(2) {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...].drop { $0 == " " }
        headers.append((line[..<colon].lowercased(), String(value)))
    }

    // A fixed server time, so that a finding replays the same.
    let now = Date(timeIntervalSince1970: 1_764_144_000)
    let (apnsID, result) = ProviderRequestCheck.check(ProviderRequest(method: method, path: path, headers: headers), now: now)
    guard ProviderRequestCheck.isValidUUIDText(apnsID) else { fatalError("apns-id \(apnsID) is not a canonical UUID") }
    if case .success(let push) = result {
        // Checked here without the checks' own helpers: what the server stores and routes by must be plain
        // ASCII, whatever Unicode calls a hex digit.
        let isLowercaseHex = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }
        guard push.deviceToken.utf8.allSatisfy(isLowercaseHex), (64...200).contains(push.deviceToken.utf8.count),
            !push.topic.isEmpty, push.topic.utf8.allSatisfy({ $0 < 0x80 }), push.topic.hasPrefix(push.bundleIdentifier),
            [1, 5, 10].contains(push.priority), push.collapseID.map({ $0.utf8.count <= 64 }) ?? true,
            push.expiration.map({ $0 >= 0 }) ?? true
        else { fatalError("accepted a push that breaks the documented rules: \(push)") }
        if let token = push.providerToken { parseToken(token) }
    }
    if let last = lines.last { parseToken(String(last)) }
    return 0
}

private func parseToken(_ text: String) {
    guard let token = try? ProviderToken(parsing: text) else { return }
    _ = (token.keyID, token.teamID, token.issuedAt)
    _ = token.isSigned(byPublicKeyPEM: publicKeyPEM)
}

private let publicKeyPEM = """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEv6MTWs5uSoIGQYHXP9iT2O2jUmKf
    irCpeQG1habZTiw2VKhSmXGjZG4c0PiN9PDepYCAEo53/dnzbOy+3QJ8jA==
    -----END PUBLIC KEY-----
    """

extension ProviderRequestCheck {
    /// 8-4-4-4-12 lowercase hexadecimal digits.
    static func isValidUUIDText(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12]
            && groups.allSatisfy { $0.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } }
    }
}
