import Foundation
import HuddleCore

/// A Live Activity push as the device takes it: `ActivityPush.decode` on the bytes, then the rules
/// (`DeviceActivities.apply`) on a device holding one activity of a declared type, through its update token
/// and through a push-to-start token; and the bytes read as an app's declarations (`ActivityDeclarations`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    _ = try? ActivityPush.decode(bytes)
    guard let payload = try? JSONParser.parse(bytes) else { return 0 }
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let declarations = (try? ActivityDeclarations(
        types: [try ActivityType(
            name: "DeliveryAttributes", attributes: try ActivitySchema(json: ["order": "string"]),
            contentState: try ActivitySchema(json: ["eta": "date", "driver": "string?", "stops": [["name": "string", "at": "date?"]]]))]))
        ?? ActivityDeclarations()
    var device = DeviceActivities(activities: [
        LiveActivity(
            id: "a", app: "com.example.app", typeName: "DeliveryAttributes", attributes: ["order": "42"], contentState: ["eta": 1.0],
            timestamp: now.addingTimeInterval(-60), startedAt: now.addingTimeInterval(-60), updateToken: "update")
    ])
    for target in [ActivityPushTarget.activity(id: "a"), .pushToStart(app: "com.example.app", typeName: "DeliveryAttributes")] {
        var copy = device
        let result = copy.apply(
            payload: payload, to: target, priority: 10, declarations: declarations, at: now, newActivity: NewActivityIdentity(id: "b", updateToken: "new"))
        _ = result.notes.map(\.description)
        _ = copy.activities.map(\.json)
        _ = copy.advance(to: now.addingTimeInterval(9 * 3600))
    }
    _ = device.advance(to: now)
    _ = try? ActivityDeclarations(json: JSONReader(payload))
    return 0
}
