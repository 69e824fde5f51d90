import HuddleFolderLayering
import Testing

/// HuddleLint's folders depend one way, from the lowest up: findings, the project a run reads, the rules, the
/// reports' formats. The run that applies the rules to a project is the module's own (`LintRun.swift`).
@Suite struct FolderLayeringTests {
    static let order = ["Findings", "Project", "Rules", "Output"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        #expect(try FolderLayering(module: "HuddleLint", testFile: #filePath).problems(in: Self.order) == [])
    }
}
