import Foundation
import HuddleAPNs
import HuddleCore

/// What the request inspector records of a provider token as a stranger sends it, before anything is verified: every
/// line of the input is read as a provider token, and its age is taken at a clock whose time is the first eight bytes
/// as a raw `Double` (any bit pattern: NaN, infinities, huge values), as the inspector's record shows it
/// (`SenderRequestRecord.json(now:)` in HuddleServer, whose `providerToken` member is `ProviderToken.inspectorJSON`). Nothing
/// may trap, a token may not be read with an `iat` that is no time, and the token's part of the record, with the whole
/// input as its payload (JSON when it parses, text otherwise), must be valid JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    var clockBits: UInt64 = 0
    for byte in bytes.prefix(8) { clockBits = clockBits << 8 | UInt64(byte) }
    let now = Date(timeIntervalSince1970: Double(bitPattern: clockBits))
    let text = String(decoding: bytes, as: UTF8.self)

    var record = JSONObject()
    for line in text.split(separator: "\n") {
        guard let token = try? ProviderToken(parsing: String(line)) else { continue }
        guard token.issuedAt.timeIntervalSince1970.isFinite, token.issuedAt.timeIntervalSince1970 >= 0 else {
            fatalError("a token read with an iat that is no time: \(token.issuedAt.timeIntervalSince1970)")
        }
        record["providerToken"] = ProviderToken.inspectorJSON(keyID: token.keyID, issuer: token.teamID, issuedAt: token.issuedAt, now: now)
    }
    if let value = try? JSONParser.parse(Array(bytes)) { record["payload"] = value } else { record["payloadText"] = .string(text) }

    guard let parsed = try? JSONParser.parse(JSONValue.object(record).jsonUTF8()) else { fatalError("the record's JSON does not parse") }
    if let age = parsed["providerToken"]?["ageSeconds"] {
        guard case .integer = age else { fatalError("a token's age that is not a whole number: \(age)") }
    }
    return 0
}
