import Benchmark
import Foundation
import HuddleAPNs
import HuddleCore

// Issue 14's workload: a scenario of 2,000 notifications, written on one line and indented. Loading it
// once took 15–25 s on one line, because the JSON reader counted lines from the start of the file for
// every key; positions are now counted only for an error (and by the linter, once per file).

let deliveries = 2_000
let names = ["Kritarth", "Teja", "Michele", "Ana", "Song by Song"]

/// The scenario as `huddle preview` reads it: one app with a summary format, 2,000 APNs payloads in 7
/// threads.
func scenarioJSON(deliveries: Int) -> JSONValue {
    let events: [JSONValue] = (0..<deliveries).map { index in
        let name = names[index % names.count]
        let payload: JSONValue = [
            "aps": [
                "alert": ["title": .string(name), "body": .string("Message number \(index) about the plan"), "summary-arg": .string(name)],
                "thread-id": .string("thread-\(index % 7)"), "category": "msg", "sound": "default",
            ],
            "conversation": .integer(Int64(index % 7)),
        ]
        return ["deliver": ["app": "com.example.chat", "id": .string("m\(index)"), "payload": payload]]
    }
    return [
        "apps": ["com.example.chat": ["categories": [["identifier": "msg", "categorySummaryFormat": "%u more messages from %@"]]]],
        "viewer": ["languages": ["en"]],
        "events": .array(events),
    ]
}

/// Writes the scenario to a temporary file once per layout.
func scenarioFile(indented: Bool) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-benchmark-\(indented ? "indented" : "one-line")-\(deliveries).json")
    if !FileManager.default.fileExists(atPath: url.path) {
        try! Data(scenarioJSON(deliveries: deliveries).jsonUTF8(pretty: indented)).write(to: url)
    }
    return url
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(10),
        maxIterations: 50
    )

    for indented in [false, true] {
        let layout = indented ? "indented" : "one line"
        Benchmark("Scenario: load 2,000 deliveries (\(layout))") { benchmark in
            let url = scenarioFile(indented: indented)
            benchmark.startMeasurement()
            let scenario = try Scenario.load(contentsOf: url)
            benchmark.stopMeasurement()
            precondition(scenario.events.count == deliveries)
            blackHole(scenario)
        }

        Benchmark("Scenario: load, play and render 2,000 deliveries as text (\(layout)), as huddle preview does") { benchmark in
            let url = scenarioFile(indented: indented)
            benchmark.startMeasurement()
            let scenario = try Scenario.load(contentsOf: url)
            let center = try scenario.play(relativeTo: url).center
            let text = center.render(for: scenario.viewer).text()
            benchmark.stopMeasurement()
            blackHole(text)
        }
    }
}
