import Foundation

extension AppCapabilities {
    /// As a store keeps it: `nil` for none (every app installed before capabilities existed has none).
    public var storedText: String? {
        self == AppCapabilities() ? nil : json.jsonText()
    }

    /// Capabilities read back from a store.
    /// - Throws: ``StoreError`` `.corrupt` naming the app, for text that is not a list of capabilities.
    public static func stored(_ text: String?, app topic: String) throws(StoreError) -> AppCapabilities {
        guard let text else { return AppCapabilities() }
        do {
            return try AppCapabilities(json: JSONReader(try JSONParser.parse(text)))
        } catch {
            throw StoreError(.corrupt, "the capabilities of app \(topic) cannot be read: \(error)")
        }
    }
}
