import Foundation

extension ScheduledSummary {
    /// The summary as a store keeps it (the device's latest, and in the change that delivered it).
    public var storedText: String {
        JSONValue.object(JSONObject([
            ("deliveredAt", .integer(deliveredAt.milliseconds)),
            ("period", .string(period.rawValue)),
            ("count", .integer(Int64(count))),
            ("featured", .array(featured.map { .array([.string($0.app), .string($0.identifier)]) })),
            ("apps", .array(apps.map { part in .array([.string(part.app)] + part.identifiers.map(JSONValue.string)) })),
        ])).jsonText()
    }

    /// A summary read back from a store.
    /// - Throws: ``StoreError`` `.corrupt` naming the device, for text that is not a summary.
    public static func stored(_ text: String, device token: String) throws(StoreError) -> ScheduledSummary {
        do {
            let reader = JSONReader(try JSONParser.parse(text))
            guard let period = Period(rawValue: try reader.member("period").string()) else {
                throw try reader.member("period").failure("unknown period")
            }
            let featured = try reader.member("featured").array().map { pair throws(JSONReadError) in
                let parts = try pair.array()
                guard parts.count == 2 else { throw pair.failure("expected [app, identifier]") }
                return Featured(app: try parts[0].string(), identifier: try parts[1].string())
            }
            let apps = try reader.member("apps").array().map { part throws(JSONReadError) in
                let parts = try part.array()
                guard let first = parts.first else { throw part.failure("expected [app, identifier…]") }
                return AppPart(app: try first.string(), identifiers: try parts.dropFirst().map { element throws(JSONReadError) in try element.string() })
            }
            return ScheduledSummary(
                deliveredAt: Date(milliseconds: Int64(try reader.member("deliveredAt").integer())), period: period, featured: featured,
                apps: apps, count: try reader.member("count").integer())
        } catch {
            throw StoreError(.corrupt, "a summary of device \(token) cannot be read: \(error)")
        }
    }
}
