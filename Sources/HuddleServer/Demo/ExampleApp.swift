import Foundation
import HuddleAPNs
import HuddleCore

/// The app that the home page's "Create and open" installs on the device it makes: Chat
/// (`com.example.chat`), from the bundled `example-app.json`, with the demo's Messages `.stringsdict`
/// files.
///
/// A device with no app refuses every push (`DeviceTokenNotForTopic`, as APNs refuses a token that is not
/// the topic's), so the commands a new device's page shows would fail as shown. With this app they work at
/// once, and its category's summary shows what Huddle is for: plural forms in the viewer's language ("1
/// more message from Teja", "Ещё 2 сообщения от Teja").
enum ExampleApp {
    static let topic = "com.example.chat"
    /// The category whose summary format pluralizes (`MESSAGES_FROM_SUMMARY`).
    static let category = "message"

    /// The app as a device stores it, read once.
    /// - Throws: when the build lacks the file or it does not read, which a unit test rules out.
    static func record() throws -> AppRecord { try loaded.get() }

    private static let loaded: Result<AppRecord, StoreError> = {
        do { return .success(try load()) } catch { return .failure(StoreError(.corrupt, "the example app does not install: \(error)")) }
    }()

    /// Reads the app and checks it as installing it would (its categories and catalogs), so that the store's
    /// transaction only stores it.
    private static func load() throws -> AppRecord {
        guard let url = Bundle.module.url(forResource: "example-app", withExtension: "json", subdirectory: "Demo") else {
            throw StoreError(.notFound, "the example app is missing from this build")
        }
        let records = try Scenario.load(contentsOf: url).appRecords(relativeTo: url)
        guard let record = records.first(where: { $0.topic == topic }) else {
            throw StoreError(.notFound, "example-app.json does not describe \(topic)")
        }
        var check = Center()
        try check.install(record)
        return record
    }
}
