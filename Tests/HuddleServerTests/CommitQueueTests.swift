import Foundation
import HuddleCore
@testable import HuddleServer
import HuddleTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// Group commit: writes that wait while a transaction commits go together in the next one, each caller
/// resumes once its write is committed and applied, and one write that fails does not fail the others.
@Suite(.timeLimit(.minutes(1))) struct CommitQueueTests {
    static let token = DeviceSessionTests.token
    static let app = DeviceSessionTests.app

    /// A real store whose batch commits are recorded, and held back while `isHolding` until released; with
    /// `failsBatches`, any batch of more than one write fails as a whole, as a transaction can.
    final class RecordingStore: Sendable {
        let store: any NotificationStore
        let failsBatches: Bool
        private let state = Mutex<(batchSizes: [Int], writes: [NotificationWrite], isHolding: Bool, held: [CheckedContinuation<Void, Never>])>(
            ([], [], true, []))
        /// How many batches arrived.
        let batches = Observed(0)

        /// An event loop: each batch notes whether it was committed there.
        let loop: (any EventLoop)?
        private let onLoop = Mutex<[Bool]>([])

        init(_ store: any NotificationStore, failsBatches: Bool = false, loop: (any EventLoop)? = nil) {
            self.store = store
            self.failsBatches = failsBatches
            self.loop = loop
        }

        /// For each batch, whether it was committed on `loop`.
        var committedOnLoop: [Bool] { onLoop.withLock { $0 } }

        var batchSizes: [Int] { state.withLock { $0.batchSizes } }
        /// Every write committed, in order.
        var writes: [NotificationWrite] { state.withLock { $0.writes } }

        func release() {
            let held = state.withLock { state in
                state.isHolding = false
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }

        func commit(_ writes: [NotificationWrite]) async throws -> [Result<[DeviceChange], StoreError>] {
            if let loop { onLoop.withLock { $0.append(loop.inEventLoop) } }
            await withCheckedContinuation { continuation in
                let holds = state.withLock { state in
                    state.batchSizes.append(writes.count)
                    state.writes += writes
                    if state.isHolding { state.held.append(continuation) }
                    return state.isHolding
                }
                batches.update { $0 += 1 }
                if !holds { continuation.resume() }
            }
            if failsBatches, writes.count > 1 { throw StoreError(.unavailable, "this transaction failed") }
            return try await store.commit(writes)
        }
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func writesThatWaitShareOneTransactionAndEachSeesItsChangeApplied(_ backend: ServerRouterTests.Backend) async throws {
        try await DeviceSessionTests.withStore(backend) { store in
            let recording = RecordingStore(store)
            let waiting = Observed(0)
            let queue = CommitQueue(store: RecordingWrapper(recording)) { count in waiting.update { $0 = count } }
            let session = try #require(try await DeviceSession.load(token: Self.token, store: store, commits: queue))
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The first write commits alone and is held; 30 arrive meanwhile and wait.
                group.addTask { _ = try await Self.deliver("first", to: session) }
                #expect(await recording.batches.wait { $0 == 1 })
                for index in 0..<30 {
                    group.addTask {
                        let change = try #require(try await Self.deliver("n\(index)", to: session))
                        // Answered only once the session shows it.
                        let applied = await session.appliedChange
                        #expect(applied >= change.number)
                    }
                }
                #expect(await waiting.wait { $0 == 30 })
                recording.release()
                try await group.waitForAll()
            }
            #expect(recording.batchSizes == [1, 30])
            #expect(await session.appliedChange == 32)
            #expect(await session.read { $0.deliveredNotifications(app: Self.app).count } == 31)
            #expect(try await store.changes(device: Self.token, after: 1)?.map(\.number) == Array(2...32))
        }
    }

    @Test func aFailedTransactionIsRetriedOneWriteAtATimeSoOnlyTheBadWriteFails() async throws {
        try await DeviceSessionTests.withStore(.sqlite) { store in
            let recording = RecordingStore(store, failsBatches: true)
            let waiting = Observed(0)
            let queue = CommitQueue(store: RecordingWrapper(recording)) { count in waiting.update { $0 = count } }
            let session = try #require(try await DeviceSession.load(token: Self.token, store: store, commits: queue))
            let results = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                group.addTask { ("first", try await Self.deliver("first", to: session) != nil) }
                #expect(await recording.batches.wait { $0 == 1 })
                for index in 0..<5 {
                    group.addTask { ("n\(index)", try await Self.deliver("n\(index)", to: session) != nil) }
                }
                // An app the device does not have: this write alone fails.
                group.addTask {
                    do {
                        _ = try await session.deliver(
                            DeviceSessionTests.request("stray", thread: "t", sender: "Teja"), app: "com.example.missing", at: Date())
                        return ("stray", true)
                    } catch DeliveryRefusal.unknownApp {
                        return ("stray", false)
                    }
                }
                #expect(await waiting.wait { $0 == 6 })
                recording.release()
                return try await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results == ["first": true, "n0": true, "n1": true, "n2": true, "n3": true, "n4": true, "stray": false])
            // The batch of six failed, then each was committed alone.
            #expect(recording.batchSizes == [1, 6, 1, 1, 1, 1, 1, 1])
            #expect(await session.appliedChange == 7)
        }
    }

    /// The server gives the queue one of its event loops: batches are committed from there (the store's call starts
    /// there; SQLite's own queue then runs the transaction), and from Swift's pool without one.
    @Test func theWriterRunsOnTheExecutorItIsGiven() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        try await DeviceSessionTests.withStore(.memory) { store in
            for executor in [EventLoopTaskExecutor(loop), nil] {
                let recording = RecordingStore(store, loop: loop)
                recording.release()
                let queue = CommitQueue(store: RecordingWrapper(recording), writerExecutor: executor)
                let session = try #require(try await DeviceSession.load(token: Self.token, store: store, commits: queue))
                _ = try #require(try await Self.deliver(executor == nil ? "from-pool" : "from-loop", to: session))
                #expect(recording.committedOnLoop == [executor != nil])
            }
        }
        try await group.shutdownGracefully()
    }

    static func deliver(_ id: String, to session: DeviceSession) async throws -> DeviceChange? {
        try await session.deliver(DeviceSessionTests.request(id, thread: "t", sender: "Teja"), app: app, at: Date())
    }
}

/// The store, with its batch commits going through a ``CommitQueueTests/RecordingStore``.
struct RecordingWrapper: NotificationStore {
    let recording: CommitQueueTests.RecordingStore
    /// Whether reading a device fails as a database that cannot be reached does.
    let isUnavailable: Bool
    var store: any NotificationStore { recording.store }

    init(_ recording: CommitQueueTests.RecordingStore, isUnavailable: Bool = false) {
        self.recording = recording
        self.isUnavailable = isUnavailable
    }

    func commit(_ writes: [NotificationWrite]) async throws -> [Result<[DeviceChange], StoreError>] {
        try await recording.commit(writes)
    }
    func trimNotifications(app: String, device token: String, limit: Int) async throws -> DeviceChange? {
        try await store.trimNotifications(app: app, device: token, limit: limit)
    }

    func saveReceipts(_ receipts: [DeliveryReceipt]) async throws {
        try await store.saveReceipts(receipts)
    }
    func receipts(ids: [String], keptSince: Date) async throws -> [DeliveryReceipt] {
        try await store.receipts(ids: ids, keptSince: keptSince)
    }
    func forgetReceipts(createdBefore date: Date, keepingAtMost count: Int) async throws -> Int {
        try await store.forgetReceipts(createdBefore: date, keepingAtMost: count)
    }
    func recordEvent(_ event: DeviceEvent, device token: String) async throws -> DeviceChange {
        try await store.recordEvent(event, device: token)
    }

    func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) async throws -> [DeviceChange] {
        try await store.updateActivities(device: token, app: topic, update)
    }

    func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) async throws -> DeviceChange? {
        try await store.updateDeviceSettings(device: token, update)
    }

    func holdingDevices(knowingSettingsAsOf known: [String: UInt64]) async throws -> [HoldingDevice] {
        try await store.holdingDevices(knowingSettingsAsOf: known)
    }

    func deliverSummaries(device token: String, dueBy date: Date?) async throws -> [DeviceChange] {
        try await store.deliverSummaries(device: token, dueBy: date)
    }

    func createDevice(_ device: DeviceRecord, maximumDevices: Int) async throws {
        try await store.createDevice(device, maximumDevices: maximumDevices)
    }
    func device(token: String) async throws -> DeviceRecord? { try await store.device(token: token) }
    func deviceCount() async throws -> Int { try await store.deviceCount() }
    func devices(newestFirst limit: Int) async throws -> [DeviceRecord] { try await store.devices(newestFirst: limit) }
    func deleteDevice(token: String, at date: Date) async throws -> Bool { try await store.deleteDevice(token: token, at: date) }
    func unregistrationDate(token: String) async throws -> Date? { try await store.unregistrationDate(token: token) }
    func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange {
        try await store.updateApp(topic: topic, device: token, maximumApps: maximumApps, update)
    }
    func apps(device token: String) async throws -> [AppRecord] { try await store.apps(device: token) }
    func deleteApp(topic: String, device token: String, precondition: AppPrecondition?) async throws -> DeviceChange? {
        try await store.deleteApp(topic: topic, device: token, precondition: precondition)
    }
    func deliver(_ request: NotificationRequest, app: String, at date: Date, device token: String) async throws -> DeviceChange {
        try await store.deliver(request, app: app, at: date, device: token)
    }
    func deleteNotifications(app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String) async throws -> DeviceChange? {
        try await store.deleteNotifications(app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token)
    }
    func snapshot(device token: String) async throws -> DeviceSnapshot? {
        if isUnavailable { throw StoreError(.unavailable, "the database cannot be reached") }
        return try await store.snapshot(device: token)
    }
    func changes(device token: String, after number: UInt64) async throws -> [DeviceChange]? {
        try await store.changes(device: token, after: number)
    }
    func saveSigningKey(_ key: SigningKeyRecord) async throws { try await store.saveSigningKey(key) }
    func signingKey(id: String) async throws -> SigningKeyRecord? { try await store.signingKey(id: id) }
    func signingKeys() async throws -> [SigningKeyRecord] { try await store.signingKeys() }
    func deleteSigningKey(id: String) async throws -> Bool { try await store.deleteSigningKey(id: id) }
    func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) async throws {
        try await store.createChannel(channel, maximumPerApp: maximumPerApp)
    }
    func channel(id: String) async throws -> BroadcastChannel? { try await store.channel(id: id) }
    func channels(app: String, environment: APNsEnvironment) async throws -> [String] {
        try await store.channels(app: app, environment: environment)
    }
    func deleteChannel(id: String) async throws -> Bool { try await store.deleteChannel(id: id) }
    func storeBroadcast(_ message: StoredBroadcast, channel id: String) async throws -> Bool {
        try await store.storeBroadcast(message, channel: id)
    }
    func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) async throws -> [String] {
        try await store.devices(listeningOn: channel, app: app, environment: environment)
    }
    func saveServiceAccount(_ account: ServiceAccountRecord) async throws { try await store.saveServiceAccount(account) }
    func serviceAccount(keyID: String) async throws -> ServiceAccountRecord? { try await store.serviceAccount(keyID: keyID) }
    func serviceAccounts() async throws -> [ServiceAccountRecord] { try await store.serviceAccounts() }
    func deleteServiceAccount(keyID: String) async throws -> Bool { try await store.deleteServiceAccount(keyID: keyID) }
    func firebaseRecipient(registrationToken: String) async throws -> FirebaseRecipient? {
        try await store.firebaseRecipient(registrationToken: registrationToken)
    }
    func registrationToken(installationID: String) async throws -> String? {
        try await store.registrationToken(installationID: installationID)
    }
    func webPushRecipient(subscriptionID: String) async throws -> WebPushRecipient? {
        try await store.webPushRecipient(subscriptionID: subscriptionID)
    }
    func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) async throws -> Bool {
        try await store.subscribe(registrationToken: registrationToken, project: project, topic: topic, at: date, maximumTopics: maximumTopics)
    }
    func unsubscribe(registrationToken: String, project: String, topic: String) async throws -> Bool {
        try await store.unsubscribe(registrationToken: registrationToken, project: project, topic: topic)
    }
    func subscribers(project: String, toAnyOf topics: [String]) async throws -> [(registrationToken: String, topics: Set<String>)] {
        try await store.subscribers(project: project, toAnyOf: topics)
    }
}
