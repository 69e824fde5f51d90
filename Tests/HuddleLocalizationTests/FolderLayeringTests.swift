import HuddleFolderLayering
import Testing

/// HuddleLocalization's folders depend one way, from the lowest up: file names, plural rules, catalogs, formats.
@Suite struct FolderLayeringTests {
    static let order = ["Files", "Plurals", "Catalogs", "Formats"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        #expect(try FolderLayering(module: "HuddleLocalization", testFile: #filePath).problems(in: Self.order) == [])
    }
}
