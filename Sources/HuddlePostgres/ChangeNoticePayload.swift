import HuddleCore

/// What one `pg_notify` on the `huddle_changes` channel says: which store instance committed what.
///
/// The text is a small JSON object, `{"server": ID, "device": TOKEN, "change": N}` or
/// `{"server": ID, "device": TOKEN, "deleted": true}`, so that an operator can watch the channel with
/// `psql` and read it. PostgreSQL caps a payload at 8000 bytes; these stay far below.
struct ChangeNoticePayload: Sendable, Hashable {
    enum Event: Sendable, Hashable {
        /// The device's changes up to this number are committed.
        case changed(UInt64)
        case deleted
    }

    /// The store instance that committed the change: a listener drops its own.
    var server: String
    var device: String
    var event: Event

    /// The channel every Huddle server sharing a database listens on.
    static let channel = "huddle_changes"

    init(server: String, device: String, event: Event) {
        self.server = server
        self.device = device
        self.event = event
    }

    /// Reads a payload back; `nil` for one this build does not understand.
    init?(text: String) {
        guard let json = try? JSONParser.parse(text), let server = json["server"]?.stringValue, let device = json["device"]?.stringValue
        else { return nil }
        self.server = server
        self.device = device
        if json["deleted"] == .bool(true) {
            event = .deleted
        } else if case .integer(let number)? = json["change"], number > 0 {
            event = .changed(UInt64(number))
        } else {
            return nil
        }
    }

    var text: String {
        var members: [(key: String, value: JSONValue)] = [("server", .string(server)), ("device", .string(device))]
        switch event {
        case .changed(let number): members.append(("change", .integer(Int64(number))))
        case .deleted: members.append(("deleted", .bool(true)))
        }
        return JSONValue.object(JSONObject(members)).jsonText()
    }

    /// The notice a server that did not commit the change acts on.
    var notice: ChangeNotice {
        switch event {
        case .changed(let number): .changed(device: device, number: number)
        case .deleted: .deviceDeleted(device)
        }
    }
}
