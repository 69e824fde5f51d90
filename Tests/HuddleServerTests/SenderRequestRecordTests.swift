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
            receivedAt: Self.start, httpVersion: "HTTP/2", tls: false, method: "POST", path: "/3/device/00", headers: [])
        record.noteProviderToken(try ProviderToken(parsing: "\(header).\(body).AAAA"))
        for now in [Date(timeIntervalSince1970: .nan), .distantPast, Date(timeIntervalSince1970: -1e300), Self.start] {
            let age = record.json(now: now)["providerToken"]?["ageSeconds"]
            guard case .integer? = age else {
                Issue.record("ageSeconds \(String(describing: age)) at \(now.timeIntervalSince1970)")
                continue
            }
        }
    }

    /// The inspector's JSON of a record, whatever sender it came through: the names its clients read (`apnsID`,
    /// `providerToken.teamID`) for an FCM send's message id and project too.
    @Test func aRecordsJSONKeepsTheInspectorsNames() throws {
        var record = SenderRequestRecord(
            receivedAt: Self.start, client: "127.0.0.1:5000", httpVersion: "HTTP/2", tls: true, method: "POST",
            path: "/v1/projects/demo/messages:send", headers: [])
        record.id = 7
        record.microseconds = 120
        record.tokenKeyID = "key-1"
        record.tokenIssuer = "demo"
        record.messageID = "0:1780000000000000%31bd1c9631bd1c96"
        record.status = 200
        record.payload = Array(#"{"message":{"token":"t"}}"#.utf8)
        let json = record.json(now: Self.start.addingTimeInterval(30))
        #expect(json["answer"]?["apnsID"] == .string("0:1780000000000000%31bd1c9631bd1c96"))
        #expect(json["providerToken"] == .object(JSONObject([("keyID", "key-1"), ("teamID", "demo")])))
        #expect(json["authentication"] == "token" && json["payload"]?["message"]?["token"] == "t")
        #expect(json["connection"]?["client"] == "127.0.0.1:5000" && json["connection"]?["tls"] == .bool(true))
        // A refusal's reason and words, and no status for a request a fault cut off.
        record.status = 0
        record.reason = "UNAVAILABLE"
        #expect(record.json(now: Self.start)["answer"]?["status"] == .null && record.json(now: Self.start)["answer"]?["reason"] == "UNAVAILABLE")
    }
}
