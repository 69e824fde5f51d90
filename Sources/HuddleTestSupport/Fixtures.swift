public import Foundation
public import HuddleCore
import HuddleAPNs

/// Checked-in test files: `Tests/<Target>/Fixtures/…`, found from the test file's own path.
public enum Fixtures {
    /// The `Fixtures` folder beside the calling test file's target folder.
    public static func directory(filePath: StaticString = #filePath) -> URL {
        var url = URL(fileURLWithPath: "\(filePath)")
        while url.pathComponents.count > 1, url.deletingLastPathComponent().lastPathComponent != "Tests" {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("Fixtures")
    }

    /// The package's root folder.
    public static func packageRoot(filePath: StaticString = #filePath) -> URL {
        directory(filePath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    public static func json(_ url: URL) throws -> JSONValue {
        try JSONParser.parse(try Data(contentsOf: url))
    }
}

/// A scenario fixture (`NAME.json`) and its expectations (`NAME.expected.json`): a list of renders, each
/// an optional viewer that overrides the scenario's, and the center it must produce (see
/// ``JSONExpectation`` for how partial expectations match).
public struct ScenarioFixture: Sendable, CustomStringConvertible {
    public let name: String
    public let scenarioURL: URL
    public let expectationsURL: URL

    public init(name: String, directory: URL) {
        self.name = name
        self.scenarioURL = directory.appendingPathComponent("\(name).json")
        self.expectationsURL = directory.appendingPathComponent("\(name).expected.json")
    }

    public var description: String { name }

    /// Every fixture in a folder, by name.
    public static func all(in directory: URL) -> [ScenarioFixture] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".expected.json") }
            .map { ScenarioFixture(name: String($0.dropLast(".expected.json".count)), directory: directory) }
            .sorted { $0.name < $1.name }
    }

    /// Plays the scenario and checks each expected render.
    /// - Returns: the mismatches, each prefixed with the render's index; empty when all match.
    public func mismatches(
        play: (Scenario, URL) throws -> Scenario.Played = { scenario, url in try scenario.playDevice(relativeTo: url).played }
    ) throws -> [String] {
        let scenario = try Scenario.load(contentsOf: scenarioURL)
        let played = try play(scenario, scenarioURL)
        guard case .array(let renders) = try Fixtures.json(expectationsURL) else {
            return ["\(expectationsURL.lastPathComponent): expected a list of renders"]
        }
        var problems: [String] = []
        for (index, render) in renders.enumerated() {
            var viewer = scenario.viewer
            if case .array(let languages)? = render["viewer"]?["languages"] {
                viewer.languages = languages.compactMap { if case .string(let language) = $0 { language } else { nil } }
            }
            if case .bool(let locked)? = render["viewer"]?["locked"] { viewer.locked = locked }
            guard let expected = render["center"] else {
                problems.append("render \(index): no \"center\"")
                continue
            }
            let actual = played.render(for: viewer).json
            problems += JSONExpectation.mismatches(expected: expected, actual: actual).map { "render \(index): \($0)" }
        }
        return problems
    }
}
