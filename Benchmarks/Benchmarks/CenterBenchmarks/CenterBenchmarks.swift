import Benchmark
import Foundation
import HuddleCore

// Issue 2's workload: deliver 1,000,000 notifications into 10,000 groups, render the whole center, remove
// half, and a baseline of the same keys appended to a plain dictionary of arrays, measured in the same run.

let deliveries = 1_000_000
let appCount = 10
let threadsPerApp = 1_000
let start = Date(timeIntervalSince1970: 1_528_304_400)

struct Workload {
    var apps: [String]
    var requests: [(app: String, request: NotificationRequest)]
    var groupKeys: [String]

    init(deliveries: Int, groups: Int) {
        let threads = groups / appCount
        apps = (0..<appCount).map { "com.example.app\($0)" }
        requests = []
        groupKeys = []
        requests.reserveCapacity(deliveries)
        groupKeys.reserveCapacity(deliveries)
        let categories = ["message", "photo", ""]
        let names = ["Kritarth", "Teja", "Michele", "Song by Song", ""]
        for index in 0..<deliveries {
            let app = apps[index % appCount]
            let thread = "thread-\((index / appCount) % threads)"
            var content = NotificationContent(title: .plain("Sender \(index % 97)"), body: .plain("Message number \(index)"))
            content.threadIdentifier = thread
            content.categoryIdentifier = categories[index % categories.count]
            content.summaryArgument = names[index % names.count]
            content.summaryArgumentCount = 1 + index % 3
            requests.append((app, NotificationRequest(identifier: "n\(index)", content: content)))
            groupKeys.append("\(app)/\(thread)")
        }
    }

    func makeCenter() -> Center {
        var center = Center()
        for app in apps {
            try! center.register(AppRegistration(bundleIdentifier: app))
            try! center.setCategories([
                NotificationCategory(identifier: "message", categorySummaryFormat: .plain("%u more messages from %@")),
                NotificationCategory(identifier: "photo", categorySummaryFormat: .plain("%u more photos")),
            ], for: app)
        }
        return center
    }

    func filledCenter() -> Center {
        var center = makeCenter()
        for (offset, item) in requests.enumerated() {
            try! center.deliver(item.request, app: item.app, at: start.addingTimeInterval(Double(offset) / 1000))
        }
        return center
    }
}

nonisolated(unsafe) var workloads: [Int: Workload] = [:]
func workload(groups: Int, deliveries: Int = deliveries) -> Workload {
    let key = groups * 1_000_000_007 + deliveries
    if let cached = workloads[key] { return cached }
    let made = Workload(deliveries: deliveries, groups: groups)
    workloads[key] = made
    return made
}

/// Delivers 10k more notifications into the filled center of 10k groups, rendering (limit 3) after each the
/// group it changed; only that is measured.
func renderEachChangedGroup(
    _ benchmark: Benchmark, render: (Center, GroupID, RenderOptions) -> Void
) throws {
    let load = workload(groups: 10_000)
    var center = load.filledCenter()
    let options = RenderOptions(notificationLimit: 3)
    benchmark.startMeasurement()
    for (offset, item) in load.requests.prefix(10_000).enumerated() {
        let request = NotificationRequest(identifier: "again-\(offset)", content: item.request.content)
        guard let delivery = try center.deliver(request, app: item.app, at: start.addingTimeInterval(Double(deliveries + offset)))
        else { continue }
        render(center, delivery.group, options)
    }
    benchmark.stopMeasurement()
    blackHole(center)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        scalingFactor: .mega,
        maxDuration: .seconds(20),
        maxIterations: 5
    )

    Benchmark("Baseline: 1M keys appended to [String: [Int]]") { benchmark in
        let load = workload(groups: 10_000)
        benchmark.startMeasurement()
        var dictionary: [String: [Int]] = [:]
        for (offset, key) in load.groupKeys.enumerated() {
            dictionary[key, default: []].append(offset)
        }
        benchmark.stopMeasurement()
        blackHole(load)
        blackHole(dictionary)
    }

    Benchmark("Floor: 1M notifications stored by identifier only") { benchmark in
        // What any center must do before grouping anything: keep each notification under its identifier.
        let load = workload(groups: 10_000)
        benchmark.startMeasurement()
        var byIdentifier: [String: DeliveredNotification] = [:]
        for (offset, item) in load.requests.enumerated() {
            byIdentifier[item.request.identifier] = DeliveredNotification(
                app: item.app, request: item.request, stamp: DeliveryStamp(date: start, sequence: UInt64(offset)))
        }
        benchmark.stopMeasurement()
        blackHole(byIdentifier)
        blackHole(load)
    }

    Benchmark("Center: deliver 1M into 10k groups") { benchmark in
        let load = workload(groups: 10_000)
        var center = load.makeCenter()
        benchmark.startMeasurement()
        for (offset, item) in load.requests.enumerated() {
            try center.deliver(item.request, app: item.app, at: start.addingTimeInterval(Double(offset) / 1000))
        }
        benchmark.stopMeasurement()
        blackHole(center)
        blackHole(load)
    }

    Benchmark("Center.apply: 1M committed deliveries into 10k groups (the server's path)") { benchmark in
        // What a device session does with each committed push: apply the numbered change and gather what it
        // touched for the streams. A copy of the center per change (a copy-on-write slip) shows here as a
        // cost that grows with the center.
        let load = workload(groups: 10_000)
        var center = load.makeCenter()
        let changes = load.requests.enumerated().map { offset, item in
            let number = UInt64(offset + 1)
            let stamp = DeliveryStamp(date: start.addingTimeInterval(Double(offset) / 1000), sequence: number)
            return DeviceChange(number: number, kind: .delivered(DeliveredNotification(app: item.app, request: item.request, stamp: stamp)))
        }
        benchmark.startMeasurement()
        for change in changes {
            blackHole(center.apply(change))
        }
        benchmark.stopMeasurement()
        blackHole(center)
        blackHole(changes)
    }

    // What a live stream's change event costs the engine: the touched group alone, not the center. Once with
    // a new text resolver for each rendering, once as a live view renders, with one memory for the viewer
    // (each app's summary format parsed and validated once, not at every change).
    Benchmark(
        "Center: render the group each of 10k deliveries changed (10k groups, 1M notifications, limit 3)",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        let viewer = Viewer(languages: ["en"])
        try renderEachChangedGroup(benchmark) { center, group, options in
            blackHole(center.render(groups: [group], for: viewer, options: options))
        }
    }

    Benchmark(
        "Center: render the group each of 10k deliveries changed, formats remembered (RenderMemory, the server's path)",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        var memory = RenderMemory(viewer: Viewer(languages: ["en"]))
        try renderEachChangedGroup(benchmark) { center, group, options in
            blackHole(center.render(groups: [group], options: options, memory: &memory))
        }
    }

    for groups in [1_000, 10_000, 100_000] {
        // Rendering stacks collapsed (the leading notification and its summary) should grow with the number
        // of groups only: the same 1M notifications, spread over 1k, 10k and 100k groups.
        Benchmark("Center: render \(groups / 1000)k groups, leading only (1M notifications)", configuration: .init(scalingFactor: .one)) { benchmark in
            let center = workload(groups: groups).filledCenter()
            let viewer = Viewer(languages: ["en"])
            benchmark.startMeasurement()
            let rendered = center.render(for: viewer, options: RenderOptions(notificationLimit: 1))
            benchmark.stopMeasurement()
            precondition(rendered.groups.count == groups)
            // Keep the center alive until the clock has stopped: freeing 1M notifications is not rendering.
            blackHole(center)
            blackHole(rendered)
        }
    }

    Benchmark("Center: render the whole center, 10k groups, every notification", configuration: .init(scalingFactor: .one)) { benchmark in
        let center = workload(groups: 10_000).filledCenter()
        benchmark.startMeasurement()
        let rendered = center.render(for: Viewer(languages: ["en"]))
        benchmark.stopMeasurement()
        blackHole(center)
        blackHole(rendered)
    }

    Benchmark("Center: remove half (500k) by identifier", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let load = workload(groups: 10_000)
        var center = load.filledCenter()
        var byApp: [String: [String]] = [:]
        for (offset, item) in load.requests.enumerated() where offset % 2 == 0 {
            byApp[item.app, default: []].append(item.request.identifier)
        }
        benchmark.startMeasurement()
        for (app, identifiers) in byApp {
            try center.removeNotifications(withIdentifiers: identifiers, app: app)
        }
        benchmark.stopMeasurement()
        blackHole(byApp)
        precondition(center.notificationCount == deliveries / 2)
        blackHole(center)
    }
}
