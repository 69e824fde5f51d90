import Foundation
import HuddleAPNs
import HuddleCore
@testable import HuddleServer
import Testing

@Suite struct SenderRequestRecordTests {
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func theRecordOfATokenGivesItsAgeWhateverTheClockSays() throws {
        let header = Self.base64URL(#"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        let body = Self.base64URL(#"{"iss":"DEF123GHIJ","iat":253402300799}"#)
        var record = SenderRequestRecord(
            receivedAt: Self.start, httpVersion: "HTTP/2", tls: false, method: "POST", path: "/3/device/00", sender: .apns, headers: [])
        record.noteProviderToken(try ProviderToken(parsing: "\(header).\(body).AAAA"))
        for now in [Date(timeIntervalSince1970: .nan), .distantPast, Date(timeIntervalSince1970: -1e300), Self.start] {
            let age = record.json(now: now)["providerToken"]?["ageSeconds"]
            guard case .integer? = age else {
                Issue.record("ageSeconds \(String(describing: age)) at \(now.timeIntervalSince1970)")
                continue
            }
        }
    }
}
