import Foundation

extension LiveActivity {
    /// The activity as the device API, its streams and the stores show it: dates in ISO 8601 (UTC, with
    /// milliseconds when they have them), absent ones left out.
    public var json: JSONValue {
        var object = JSONObject([
            ("id", .string(id)), ("app", .string(app)), ("type", .string(typeName)), ("state", .string(state.rawValue)),
            ("attributes", attributes), ("contentState", contentState), ("timestamp", .string(ISO8601.string(from: timestamp))),
            ("startedAt", .string(ISO8601.string(from: startedAt))), ("relevanceScore", .double(relevanceScore)),
        ])
        object["staleDate"] = staleDate.map { JSONValue.string(ISO8601.string(from: $0)) }
        object["endedAt"] = endedAt.map { JSONValue.string(ISO8601.string(from: $0)) }
        object["dismissalDate"] = dismissalDate.map { JSONValue.string(ISO8601.string(from: $0)) }
        object["updateToken"] = updateToken.map(JSONValue.string)
        object["channelID"] = channelID.map(JSONValue.string)
        if !priority10Updates.isEmpty {
            object["priority10Updates"] = .array(priority10Updates.map { JSONValue.string(ISO8601.string(from: $0)) })
        }
        return .object(object)
    }

    /// Reads what ``json`` wrote.
    /// - Throws: ``JSONReadError`` naming the member that is wrong.
    public init(json reader: JSONReader) throws(JSONReadError) {
        func date(_ member: JSONReader) throws(JSONReadError) -> Date {
            guard let date = ISO8601.date(from: try member.string()) else { throw member.failure("expected an ISO 8601 date") }
            return date
        }
        func optionalDate(_ name: String) throws(JSONReadError) -> Date? {
            try reader.optionalMember(name).map { member throws(JSONReadError) in try date(member) }
        }
        let stateMember = try reader.member("state")
        guard let state = State(rawValue: try stateMember.string()) else { throw stateMember.failure("expected an activity state") }
        self.init(
            id: try reader.member("id").string(), app: try reader.member("app").string(), typeName: try reader.member("type").string(),
            attributes: try reader.member("attributes").value, contentState: try reader.member("contentState").value,
            timestamp: try date(try reader.member("timestamp")), startedAt: try date(try reader.member("startedAt")),
            staleDate: try optionalDate("staleDate"), endedAt: try optionalDate("endedAt"), dismissalDate: try optionalDate("dismissalDate"),
            relevanceScore: try reader.member("relevanceScore").number(), state: state,
            updateToken: try reader.optionalMember("updateToken")?.string(), channelID: try reader.optionalMember("channelID")?.string(),
            priority10Updates: try reader.optionalMember("priority10Updates")?.array().map { member throws(JSONReadError) in try date(member) } ?? [])
    }

}

extension ActivityDeclarations {
    /// `{"types": [...], "supportsFrequentUpdates": true}`, as an app's record keeps it.
    public var json: JSONValue {
        var object = JSONObject([("types", .array(types.map(\.json)))])
        if supportsFrequentUpdates { object["supportsFrequentUpdates"] = .bool(true) }
        return .object(object)
    }

    /// Reads what ``json`` wrote, or what a client sends when it installs an app.
    /// - Throws: ``ActivityError`` naming the declaration that is wrong.
    public init(json reader: JSONReader) throws(ActivityError) {
        self = try ActivityError.reading {
            try reader.rejectUnknownMembers(["types", "supportsFrequentUpdates"])
            let types = try reader.optionalMember("types")?.array() ?? []
            guard types.count <= Self.maximumTypes else {
                throw ActivityError(.tooLarge, "\(types.count) activity types, more than the \(Self.maximumTypes) allowed", path: reader.path)
            }
            return try ActivityDeclarations(
                types: types.map { element throws(ActivityError) in try ActivityType(json: element) },
                supportsFrequentUpdates: try reader.optionalMember("supportsFrequentUpdates")?.bool() ?? false)
        }
    }
}
