import HuddleFolderLayering
import Testing

/// HuddleServer's folders depend one way, from the lowest up: a folder uses types of the folders before it in
/// ``order`` only, so that no two folders need each other.
@Suite struct FolderLayeringTests {
    static let order = ["HTTP", "Senders", "Demo", "Pages", "Streams", "Devices", "Admin", "Inspector", "APNs", "FCM", "WebPush", "Expo", "Transport", "Web"]

    @Test func noFolderUsesAFolderAboveIt() throws {
        #expect(try FolderLayering(module: "HuddleServer", testFile: #filePath).problems(in: Self.order) == [])
    }
}
