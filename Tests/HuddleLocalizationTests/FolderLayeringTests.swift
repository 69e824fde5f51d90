import HuddleFolderLayering
import Testing

/// HuddleLocalization's folders depend one way, from the lowest up: file names, plural rules, catalogs, formats.
@Suite struct FolderLayeringTests {
    static let order = ["Files", "Plurals", "Catalogs", "Formats"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        let (upward, unordered) = try FolderLayering(module: "HuddleLocalization", testFile: #filePath).upwardUses(in: Self.order)
        #expect(unordered.isEmpty, "folders the order leaves out: \(unordered)")
        for use in upward { Issue.record("\(use): a folder above it") }
    }
}
