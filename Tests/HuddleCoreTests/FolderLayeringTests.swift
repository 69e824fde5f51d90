import HuddleFolderLayering
import Testing

/// HuddleCore's folders depend one way, from the lowest up: a folder uses types of the folders before it in ``order``,
/// and where it does not yet, the use is one of ``knownUpwardUses`` (issue 57), which only ever shrinks: a new upward
/// use fails, and so does a known one that is gone, until the list says so.
@Suite struct FolderLayeringTests {
    static let order = [
        "Text", "JSON", "Devices", "Content", "Coding", "Summary", "Activities", "Center", "Rendering", "Attention", "Android", "Store",
        "Scenario",
    ]
    /// Domain types that read their stored rows and throw `StoreError`, and apply `DeviceChange`s and snapshots (the
    /// records and codecs are to move under the stores), and the device's part woven into `RenderedCenter`.
    static let knownUpwardUses: Set<[String]> = [
        ["Activities", "Store"], ["Center", "Store"], ["Attention", "Store"], ["Android", "Store"], ["Rendering", "Attention"],
    ]

    @Test func noFolderUsesAFolderAboveItButTheKnownOnes() throws {
        #expect(try FolderLayering(module: "HuddleCore", testFile: #filePath).problems(in: Self.order, known: Self.knownUpwardUses) == [])
    }
}
