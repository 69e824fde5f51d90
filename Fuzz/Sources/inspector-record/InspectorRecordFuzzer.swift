import Foundation
import HuddleAPNs
import HuddleCore

/// The request inspector's record of a provider request, as a stranger can fill it before anything is
/// verified: every line of the input is read as a provider token (its key, team and `iat` are recorded
/// unverified), the whole input is the payload, and the first eight bytes are the reading clock's time as
/// a raw `Double` (any bit pattern: NaN, infinities, huge values). The record's JSON must never trap, must
/// be valid JSON, and may give a token's age only as a whole number.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    var clockBits: UInt64 = 0
    for byte in bytes.prefix(8) { clockBits = clockBits << 8 | UInt64(byte) }
    let now = Date(timeIntervalSince1970: Double(bitPattern: clockBits))
    let text = String(decoding: bytes, as: UTF8.self)

    var record = ProviderRequestRecord(
        receivedAt: Date(timeIntervalSince1970: 1_800_000_000), httpVersion: "HTTP/2", tls: false, method: "POST",
        path: "/3/device/00", apnsHeaders: [("apns-topic", String(text.prefix(64)))])
    record.payload = Array(bytes)
    for line in text.split(separator: "\n") {
        guard let token = try? ProviderToken(parsing: String(line)) else { continue }
        guard token.issuedAt.timeIntervalSince1970.isFinite, token.issuedAt.timeIntervalSince1970 >= 0 else {
            fatalError("a token read with an iat that is no time: \(token.issuedAt.timeIntervalSince1970)")
        }
        record.noteProviderToken(token)
    }

    let json = record.json(now: now)
    guard let parsed = try? JSONParser.parse(json.jsonUTF8()) else { fatalError("the record's JSON does not parse") }
    if let age = parsed["providerToken"]?["ageSeconds"] {
        guard case .integer = age else { fatalError("a token's age that is not a whole number: \(age)") }
    }
    return 0
}
