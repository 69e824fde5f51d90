import Foundation

extension FirebaseInstallation {
    /// As a store keeps it beside the token's own column: `nil` when only the token is set.
    public var storedText: String? {
        guard !isTokenOnly else { return nil }
        var object = JSONObject()
        object["project"] = project.map(JSONValue.string)
        if !channels.isEmpty { object["channels"] = .array(channels.map(\.json)) }
        object["defaultChannel"] = defaultChannelID.map(JSONValue.string)
        object["expoProject"] = expoProject.map(JSONValue.string)
        return JSONValue.object(object).jsonText()
    }

    /// Read back from a store.
    /// - Throws: ``StoreError`` `.corrupt` naming the app, for text that does not decode.
    public static func stored(token: String?, _ text: String?, app topic: String) throws(StoreError) -> FirebaseInstallation {
        var installation = FirebaseInstallation(registrationToken: token)
        guard let text else { return installation }
        do {
            let reader = JSONReader(try JSONParser.parse(text))
            try reader.rejectUnknownMembers(["project", "channels", "defaultChannel", "expoProject"])
            installation.project = try reader.optionalMember("project")?.string()
            installation.channels = try reader.optionalMember("channels").map { reader throws(JSONReadError) in try AndroidChannel.list(json: reader) } ?? []
            installation.defaultChannelID = try reader.optionalMember("defaultChannel")?.string()
            installation.expoProject = try reader.optionalMember("expoProject")?.string()
        } catch {
            throw StoreError(.corrupt, "the Firebase installation of app \(topic) cannot be read: \(error)")
        }
        return installation
    }
}
