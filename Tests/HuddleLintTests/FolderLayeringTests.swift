import HuddleFolderLayering
import Testing

/// HuddleLint's folders depend one way, from the lowest up: findings, the project a run reads, the rules, the
/// reports' formats. The run that applies the rules to a project is the module's own (`LintRun.swift`).
@Suite struct FolderLayeringTests {
    static let order = ["Findings", "Project", "Rules", "Output"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        let (upward, unordered) = try FolderLayering(module: "HuddleLint", testFile: #filePath).upwardUses(in: Self.order)
        #expect(unordered.isEmpty, "folders the order leaves out: \(unordered)")
        for use in upward { Issue.record("\(use): a folder above it") }
    }
}
