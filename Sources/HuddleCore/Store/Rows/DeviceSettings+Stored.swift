import Foundation

extension DeviceSettings {
    /// The settings as a store keeps them: their JSON text, or `nil` for a new device's (every device
    /// registered before settings existed has none).
    public var storedText: String? {
        self == .newDevice ? nil : json.jsonText()
    }

    /// Settings read back from a store.
    /// - Throws: ``StoreError`` `.corrupt` naming the device, for text that is not settings.
    public static func stored(_ text: String?, device token: String) throws(StoreError) -> DeviceSettings {
        guard let text else { return .newDevice }
        var settings = DeviceSettings.newDevice
        do {
            try settings.update(json: JSONReader(try JSONParser.parse(text)), ignoring: [], droppingInvalidAllowedApps: true)
        } catch {
            throw StoreError(.corrupt, "the settings of device \(token) cannot be read: \(error)")
        }
        return settings
    }
}

extension UpdateRefusal {
    /// `update` run on a device's settings as stored, its error wrapped.
    public static func check(_ update: DeviceSettingsUpdate, _ settings: DeviceSettings) throws -> DeviceSettings {
        do {
            return try update(settings)
        } catch {
            throw UpdateRefusal(error: error)
        }
    }
}
