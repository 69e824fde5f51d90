import HuddleFolderLayering
import Testing

/// HuddleAPNs' folders depend one way: the payload, then the provider API and scenarios, which read payloads.
@Suite struct FolderLayeringTests {
    static let order = ["Payload", "Provider", "Scenario"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        #expect(try FolderLayering(module: "HuddleAPNs", testFile: #filePath).problems(in: Self.order) == [])
    }
}
