import HuddleFolderLayering
import Testing

/// HuddleAPNs' folders depend one way: the payload, then the provider API and scenarios, which read payloads.
@Suite struct FolderLayeringTests {
    static let order = ["Payload", "Provider", "Scenario"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        let (upward, unordered) = try FolderLayering(module: "HuddleAPNs", testFile: #filePath).upwardUses(in: Self.order)
        #expect(unordered.isEmpty, "folders the order leaves out: \(unordered)")
        for use in upward { Issue.record("\(use): a folder above it") }
    }
}
