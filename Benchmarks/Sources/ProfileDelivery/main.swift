// A plain executable for profilers (valgrind --tool=callgrind, perf): the delivery loop of the
// CenterBenchmarks workload without the benchmark harness around it.
import Foundation
import HuddleCore

let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
var center = Center()
let apps = (0..<10).map { "com.example.app\($0)" }
for app in apps {
    try center.register(AppRegistration(bundleIdentifier: app))
    try center.setCategories([
        NotificationCategory(identifier: "message", categorySummaryFormat: .plain("%u more messages from %@")),
        NotificationCategory(identifier: "photo", categorySummaryFormat: .plain("%u more photos")),
    ], for: app)
}
let categories = ["message", "photo", ""]
let names = ["Kritarth", "Teja", "Michele", "Song by Song", ""]
var requests: [(String, NotificationRequest)] = []
for index in 0..<count {
    var content = NotificationContent(title: .plain("Sender \(index % 97)"), body: .plain("Message number \(index)"))
    content.threadIdentifier = "thread-\((index / 10) % 1000)"
    content.categoryIdentifier = categories[index % 3]
    content.summaryArgument = names[index % 5]
    content.summaryArgumentCount = 1 + index % 3
    requests.append((apps[index % 10], NotificationRequest(identifier: "n\(index)", content: content)))
}
let start = Date(timeIntervalSince1970: 1_528_304_400)
let clock = ContinuousClock()
let elapsed = try clock.measure {
    for (offset, item) in requests.enumerated() {
        try center.deliver(item.1, app: item.0, at: start.addingTimeInterval(Double(offset) / 1000))
    }
}
print("\(count) deliveries: \(elapsed), \(elapsed / count) each; \(center.notificationCount) in the center")

// Floors, for comparison: the same keys into a plain dictionary of arrays (the issue's baseline), and
// the notifications stored by identifier alone (what any center must do to honour replacement).
var baseline: [String: [Int]] = [:]
let keys = requests.map { "\($0.0)/\($0.1.content.threadIdentifier)" }
let baselineTime = clock.measure {
    for (offset, key) in keys.enumerated() { baseline[key, default: []].append(offset) }
}
var byIdentifier: [String: DeliveredNotification] = [:]
let storeTime = clock.measure {
    for (offset, item) in requests.enumerated() {
        byIdentifier[item.1.identifier] = DeliveredNotification(
            app: item.0, request: item.1, stamp: DeliveryStamp(date: start, sequence: UInt64(offset)))
    }
}
print("baseline: \(baselineTime / count) each; storing by identifier only: \(storeTime / count) each")
var slab: [DeliveredNotification] = []
var slots: [String: Int] = [:]
let slabTime = clock.measure {
    for (offset, item) in requests.enumerated() {
        slots[item.1.identifier] = slab.count
        slab.append(DeliveredNotification(app: item.0, request: item.1, stamp: DeliveryStamp(date: start, sequence: UInt64(offset))))
    }
}
print("storing in an array with an identifier index: \(slabTime / count) each; size of a notification: \(MemoryLayout<DeliveredNotification>.size) bytes")
