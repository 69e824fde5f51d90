import Foundation

extension DeviceEvent {
    /// The event as the change journal stores it (its app is the change's topic).
    public var detailText: String {
        var detail = JSONObject([
            ("pushType", .string(pushType)), ("apnsID", .string(messageID)), ("date", .integer(date.milliseconds)),
            ("priority", .integer(Int64(priority))), ("action", .string(action)), ("payload", payload),
        ])
        detail["alert"] = alert?.json
        return JSONValue.object(detail).jsonText()
    }

    /// Reads a stored event back.
    /// - Throws: ``StoreError`` `.corrupt` naming what is wrong with it.
    public init(app: String, number: UInt64, detailText: String) throws(StoreError) {
        do {
            let detail = JSONReader(try JSONParser.parse(Array(detailText.utf8)))
            self.init(
                app: app, pushType: try detail.member("pushType").string(), messageID: try detail.member("apnsID").string(),
                date: Date(milliseconds: Int64(try detail.member("date").integer())), priority: try detail.member("priority").integer(),
                action: try detail.member("action").string(), payload: try detail.member("payload").value,
                alert: try detail.optionalMember("alert").map { alert throws(JSONReadError) in
                    Alert(title: try alert.member("title").string(), body: try alert.member("body").string())
                })
        } catch {
            throw StoreError(.corrupt, "change \(number) has an unreadable event: \(error)")
        }
    }
}
