import HuddleFolderLayering
import Testing

/// HuddleCore's folders depend one way, from the lowest up: a folder uses types of the folders before it in ``order``
/// only. The domain (up to Android and WebPush) knows nothing of stores; `Records` is a stored device (its records, and how a
/// center and the person's settings load from them and follow their changes); `Store` holds the store protocol and
/// the rows' codecs (`Store/Rows`).
@Suite struct FolderLayeringTests {
    static let order = [
        "Text", "JSON", "Devices", "Content", "Coding", "Summary", "Activities", "Center", "Attention", "Rendering", "Android", "WebPush", "Records",
        "Store", "Scenario",
    ]

    @Test func noFolderUsesAFolderAboveIt() throws {
        #expect(try FolderLayering(module: "HuddleCore", testFile: #filePath).problems(in: Self.order) == [])
    }
}
