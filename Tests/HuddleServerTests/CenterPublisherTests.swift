import Foundation
import HuddleCore
@testable import HuddleServer
import Logging
import NIOCore
import Testing

/// One device's live center: the renderings it keeps, its streams' events, their order and resumption,
/// on changes applied by hand as a session applies the store's.
@Suite(.timeLimit(.minutes(1))) struct CenterPublisherTests {
    static let app = "com.example.chat"
    static let start = Date(timeIntervalSince1970: 1_528_304_400)

    /// A publisher whose center has one app whose messages summarize, at change 1.
    struct Fixture {
        var publisher: CenterPublisher
        var number: UInt64 = 1

        init() {
            var center = Center()
            let category = NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%u more messages from %@"))
            _ = center.apply(DeviceChange(number: 1, kind: .appSaved(AppRecord(topic: CenterPublisherTests.app, categories: [category]))))
            publisher = CenterPublisher(center: center, lastChange: 1, logger: Logger(label: "test"))
        }

        @discardableResult
        mutating func apply(_ kind: DeviceChange.Kind) -> CenterUpdate {
            number += 1
            return publisher.apply(DeviceChange(number: number, kind: kind))
        }

        mutating func deliver(_ id: String, thread: String, argument: String = "Teja", category: String = "msg") {
            var content = NotificationContent(title: .plain("Title"), body: .plain(id))
            content.threadIdentifier = thread
            content.categoryIdentifier = category
            content.summaryArgument = argument
            let stamp = DeliveryStamp(date: CenterPublisherTests.start.addingTimeInterval(Double(number + 1)), sequence: number + 1)
            apply(.delivered(DeliveredNotification(
                app: CenterPublisherTests.app, request: NotificationRequest(identifier: id, content: content), stamp: stamp)))
        }

        mutating func remove(_ ids: [String]) {
            apply(.removed(app: CenterPublisherTests.app, identifiers: ids))
        }

        mutating func subscribe(
            _ languages: [String] = ["en"], format: CenterView.Format = .json, limit: Int? = nil, after: UInt64? = nil,
            bufferBytes: Int = 1 << 20
        ) -> Events {
            let view = CenterView(viewer: Viewer(languages: languages), format: format, notificationLimit: limit)
            return Events(publisher.subscribe(view, resumingAfter: after, byteLimit: bufferBytes))
        }
    }

    /// A stream's events one by one, however many each take from its queue holds.
    struct Events {
        let subscription: Subscription
        private var parsed: [(id: String?, name: String, data: JSONValue)] = []

        init(_ subscription: Subscription) {
            self.subscription = subscription
        }

        /// The next event's id, name and data; `nil` when the stream has ended.
        mutating func next() async throws -> (id: String?, name: String, data: JSONValue)? {
            if parsed.isEmpty {
                guard let bytes = await subscription.next() else { return nil }
                for block in String(buffer: bytes).components(separatedBy: "\n\n") where !block.isEmpty {
                    var id: String?
                    var name = ""
                    var data = JSONValue.null
                    for line in block.split(separator: "\n") {
                        if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                        if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                        if line.hasPrefix("data: ") { data = try JSONParser.parse(String(line.dropFirst(6))) }
                        if line.hasPrefix(": ") { name = String(line) }
                    }
                    parsed.append((id, name, data))
                }
            }
            return parsed.isEmpty ? nil : parsed.removeFirst()
        }

        mutating func require() async throws -> (id: String?, name: String, data: JSONValue) {
            try #require(try await next())
        }
    }

    @Test func aNewStreamGetsTheCenterThenEachChangeForItsViewer() async throws {
        var fixture = Fixture()
        fixture.deliver("a", thread: "t", argument: "Michele", category: "")
        var english = fixture.subscribe()
        var russian = fixture.subscribe(["ru"])
        let first = try await english.require()
        #expect(first.id == "2")
        #expect(first.name == "center")
        #expect(first.data["center"]?["groups"]?.arrayValue?.count == 1)
        _ = try await russian.require()

        fixture.deliver("b", thread: "t", argument: "Teja", category: "")
        let change = try await english.require()
        #expect(change.id == "3")
        #expect(change.name == "change")
        #expect(change.data["delivered"] == ["b"])
        #expect(change.data["groups"]?.arrayValue?.first?["position"] == 0)
        #expect(change.data["groups"]?.arrayValue?.first?["group"]?["summary"] == "1 more notification from Michele")
        let inRussian = try await russian.require()
        #expect(inRussian.data["groups"]?.arrayValue?.first?["group"]?["summary"] == "Ещё 1 уведомление от Michele")
        #expect(fixture.publisher.subscribers.count == 2)
    }

    @Test func theCenterEventIsTheRenderedCenter() async throws {
        var fixture = Fixture()
        for index in 0..<12 { fixture.deliver("n\(index)", thread: "t\(index % 5)", argument: "P\(index % 3)") }
        for limit in [nil, 2] {
            var stream = fixture.subscribe(["de", "en"], limit: limit)
            let event = try await stream.require()
            let rendered = fixture.publisher.center.render(for: Viewer(languages: ["de", "en"]), options: RenderOptions(notificationLimit: limit))
            #expect(event.data["center"] == rendered.json)
            // A read of the same view is the same text.
            let document = fixture.publisher.document(CenterView(viewer: Viewer(languages: ["de", "en"]), format: .json, notificationLimit: limit))
            #expect(String(buffer: document) == rendered.json.jsonText())
        }
    }

    @Test func readsFollowEveryChangeWithoutAStream() throws {
        var fixture = Fixture()
        let view = CenterView(viewer: Viewer(), format: .json, notificationLimit: 3)
        fixture.deliver("a", thread: "one")
        _ = fixture.publisher.document(view)
        fixture.deliver("b", thread: "two")
        fixture.deliver("c", thread: "one", argument: "Michele")
        fixture.remove(["b"])
        fixture.apply(.appSaved(AppRecord(topic: Self.app, displayName: "Chat", settings: AppSettings(grouping: .byApp))))
        fixture.deliver("d", thread: "three")
        #expect(String(buffer: fixture.publisher.document(view)) == fixture.publisher.center.render(for: Viewer(), options: view.options).json.jsonText())
    }

    @Test func changesCarryPositionsAndRemovedGroups() async throws {
        var fixture = Fixture()
        fixture.deliver("a", thread: "one")
        fixture.deliver("b", thread: "two")
        var stream = fixture.subscribe(after: 3)
        fixture.deliver("c", thread: "one")
        let moved = try await stream.require()
        #expect(moved.data["groups"]?.arrayValue?.first?["position"] == 0)
        #expect(moved.data["groups"]?.arrayValue?.first?["group"]?["id"] == "com.example.chat/one")
        fixture.remove(["b"])
        let removed = try await stream.require()
        #expect(removed.data["groups"] == [])
        #expect(removed.data["removedGroups"] == ["com.example.chat/two"])
        #expect(removed.data["removed"] == ["b"])
    }

    @Test func aResumingStreamGetsOnlyTheGroupsChangedSinceItsNumber() async throws {
        var fixture = Fixture()
        fixture.deliver("a", thread: "one")
        fixture.deliver("b", thread: "two")
        fixture.deliver("c", thread: "three")
        fixture.remove(["b"])
        fixture.deliver("d", thread: "one")

        var sinceThree = fixture.subscribe(after: 3)
        let catchUp = try await sinceThree.require()
        #expect(catchUp.id == "6")
        #expect(catchUp.name == "change")
        #expect(catchUp.data["groups"]?.arrayValue?.compactMap { $0["group"]?["id"]?.stringValue } == ["com.example.chat/one", "com.example.chat/three"])
        #expect(catchUp.data["removedGroups"] == ["com.example.chat/two"])

        // Up to date: the next event is the next change.
        var upToDate = fixture.subscribe(after: 6)
        fixture.deliver("e", thread: "three")
        #expect(try await upToDate.require().id == "7")

        // Ahead of the publisher, or before what it remembers: the whole center.
        var ahead = fixture.subscribe(after: 99)
        #expect(try await ahead.require().name == "center")
        var beforeStart = fixture.subscribe(after: 0)
        #expect(try await beforeStart.require().name == "center")
    }

    @Test func aResumingStreamGetsTheDeviceEventsItMissedThenTheGroupsChanged() async throws {
        var fixture = Fixture()
        func event(_ type: String) -> DeviceChange.Kind {
            .event(DeviceEvent(
                app: CenterPublisherTests.app, pushType: type, messageID: type, date: CenterPublisherTests.start, priority: 10,
                action: "did \(type)", payload: .object(JSONObject())))
        }
        fixture.apply(event("voip"))  // 2
        fixture.deliver("a", thread: "one")  // 3
        fixture.apply(event("background"))  // 4
        fixture.apply(event("widgets"))  // 5

        // Missed since 2: the two later events, oldest first, then the change, whose number the client keeps.
        var sinceTwo = fixture.subscribe(after: 2)
        let missed = [try await sinceTwo.require(), try await sinceTwo.require(), try await sinceTwo.require()]
        #expect(missed.map(\.name) == ["device-event", "device-event", "change"])
        #expect(missed.map(\.id) == ["4", "5", "5"])
        #expect(missed[0].data["pushType"] == "background" && missed[1].data["change"] == 5)
        #expect(missed[2].data["groups"]?.arrayValue?.count == 1)

        // Only an event missed: it alone, and the (empty) change that says where the client is.
        var sinceFour = fixture.subscribe(after: 4)
        #expect(try await sinceFour.require().data["pushType"] == "widgets")
        #expect(try await sinceFour.require().name == "change")

        // A new stream, or one up to date, hears of no event again; later ones come live.
        var fresh = fixture.subscribe()
        #expect(try await fresh.require().name == "center")
        var upToDate = fixture.subscribe(after: 5)
        fixture.apply(event("mdm"))
        #expect(try await fresh.require().data["pushType"] == "mdm")
        #expect(try await upToDate.require().data["pushType"] == "mdm")
    }

    @Test func aResumingStreamGetsTheActivitiesWhenTheyChangedAfterItsNumber() async throws {
        var fixture = Fixture()
        func activity(_ id: String, relevance: Double) -> LiveActivity {
            LiveActivity(
                id: id, app: CenterPublisherTests.app, typeName: "Delivery", attributes: ["order": .string(id)], contentState: ["eta": 1],
                timestamp: CenterPublisherTests.start, startedAt: CenterPublisherTests.start, relevanceScore: relevance)
        }
        var live = fixture.subscribe(after: 1)
        fixture.apply(.activities([activity("a", relevance: 0), activity("b", relevance: 5)]))  // 2
        // Live: all of them as started, and the cards in the Lock Screen's order, drawn without a template.
        let event = try await live.require()
        #expect(event.name == "activities" && event.id == "2" && event.data["change"] == 2)
        #expect(event.data["activities"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "b"])
        let cards = try #require(event.data["lockScreen"]?.arrayValue)
        #expect(cards.compactMap { $0["id"]?.stringValue } == ["b", "a"])
        #expect(cards[0]["appName"] == "chat" && cards[0]["state"] == "active")
        #expect(cards[0]["lines"]?.arrayValue?.first?.jsonText() == #"{"label":"order","pieces":[{"text":"b"}]}"#)

        fixture.deliver("n", thread: "one")  // 3
        // Missed since 1: the activities as they are now, then the change; since 2 they did not change.
        var sinceOne = fixture.subscribe(after: 1)
        let missed = [try await sinceOne.require(), try await sinceOne.require()]
        #expect(missed.map(\.name) == ["activities", "change"])
        #expect(missed.map(\.id) == ["2", "3"])
        var sinceTwo = fixture.subscribe(after: 2)
        #expect(try await sinceTwo.require().name == "change")

        // A template saved with the app draws them anew, on every stream.
        let type = try ActivityType(name: "Delivery", template: "Order {{attributes.order}}")
        fixture.apply(.appSaved(AppRecord(topic: CenterPublisherTests.app, displayName: "Chat", activities: try ActivityDeclarations(types: [type]))))  // 4
        // After what the new name changed in the stacks.
        var redrawn = try await sinceTwo.require()
        while redrawn.name != "activities" { redrawn = try await sinceTwo.require() }
        #expect(redrawn.id == "4")
        #expect(redrawn.data["lockScreen"]?.arrayValue?.first?["appName"] == "Chat")
        #expect(redrawn.data["lockScreen"]?.arrayValue?.first?["lines"]?.jsonText() == #"[{"pieces":[{"text":"Order "},{"text":"b"}]}]"#)
        let cardsNow = fixture.publisher.activityCards(at: CenterPublisherTests.start)
        #expect(cardsNow.map(\.activity.id) == ["b", "a"])

        // Saved again with the same name and templates (a category added): the cards are as they were, and not sent again.
        let category = NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%u more messages from %@"))
        var watching = fixture.subscribe(limit: 1)
        var seen = [try await watching.require()]
        fixture.apply(.appSaved(AppRecord(
            topic: CenterPublisherTests.app, displayName: "Chat", categories: [category], activities: try ActivityDeclarations(types: [type]))))  // 5
        fixture.deliver("m", thread: "one")  // 6
        while seen.last?.id != "6" { seen.append(try await watching.require()) }
        #expect(!seen.contains { $0.name == "activities" }, "\(seen.map { $0.name })")
        // A new name draws them anew.
        fixture.apply(.appSaved(AppRecord(
            topic: CenterPublisherTests.app, displayName: "Chats", categories: [category], activities: try ActivityDeclarations(types: [type]))))  // 7
        var renamed = try await watching.require()
        while renamed.name != "activities" { renamed = try await watching.require() }
        #expect(renamed.id == "7" && renamed.data["lockScreen"]?.arrayValue?.first?["appName"] == "Chats")
    }

    @Test func aStreamThatJoinsBetweenChangesSeesEachLaterChangeOnce() async throws {
        var fixture = Fixture()
        var streams: [Events] = []
        // Streams join between changes of a busy center; each must see a state and then every later change.
        for index in 0..<20 {
            fixture.deliver("n\(index)", thread: "t\(index % 3)")
            if index % 4 == 0 { streams.append(fixture.subscribe(limit: 1)) }
        }
        fixture.remove(["n0", "n5"])
        let last = fixture.number
        for var stream in streams {
            let first = try await stream.require()
            #expect(first.name == "center")
            var expected = UInt64(first.id!)! + 1
            while expected <= last {
                let event = try await stream.require()
                #expect(event.id == String(expected))
                expected += 1
            }
        }
    }

    @Test func aStreamFurtherBehindThanItsBytesIsClosed() async throws {
        var fixture = Fixture()
        fixture.deliver("a", thread: "one")
        // One event may always wait, however large; the next one would pass the limit.
        var stalled = fixture.subscribe(bufferBytes: 64)
        var reading = fixture.subscribe()
        #expect(fixture.publisher.subscribers.count == 2)
        fixture.deliver("b", thread: "two")
        #expect(fixture.publisher.subscribers.count == 1)
        #expect(try await stalled.require().name == "center")
        #expect(try await stalled.next() == nil)
        // A stream that keeps up takes every change, whatever their sizes add up to.
        _ = try await reading.require()
        for index in 0..<20 {
            fixture.deliver("c\(index)", thread: "three")
            #expect(try await reading.require().name == "change")
        }
        #expect(fixture.publisher.subscribers.count == 1)
    }

    @Test func aStreamBehindGetsWhatWaitsInOneTake() async throws {
        var fixture = Fixture()
        let stream = fixture.subscribe()
        for index in 0..<10 { fixture.deliver("n\(index)", thread: "t") }
        let bytes = try #require(await stream.subscription.next())
        let events = String(buffer: bytes).components(separatedBy: "\n\n").filter { $0.hasPrefix("id: ") }
        #expect(events.count == 11)
        #expect(stream.subscription.waitingBytes == 0)
    }

    @Test func aChangeToEverythingSendsTheWholeCenterAndForgetsWhatCameBefore() async throws {
        var fixture = Fixture()
        fixture.deliver("a", thread: "one")
        var stream = fixture.subscribe(after: 2)
        fixture.apply(.appSaved(AppRecord(topic: Self.app, displayName: "Chat")))
        let reset = try await stream.require()
        #expect(reset.name == "center")
        #expect(reset.id == "3")
        var resuming = fixture.subscribe(after: 2)
        #expect(try await resuming.require().name == "center")
    }

    @Test func htmlStreamsCarryThePagesMarkupWithTheAppsName() async throws {
        var fixture = Fixture()
        fixture.apply(.appSaved(AppRecord(
            topic: Self.app, displayName: "Chatter",
            categories: [NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%u more messages from %@"))])))
        fixture.deliver("a", thread: "t", argument: "Michele")
        var stream = fixture.subscribe(format: .html)
        let center = try await stream.require()
        #expect(center.data["html"]?.stringValue?.contains(#"data-group="com.example.chat/t""#) == true)
        #expect(center.data["html"]?.stringValue?.contains("Chatter") == true)
        fixture.deliver("b", thread: "t", argument: "Teja")
        let change = try await stream.require()
        #expect(change.data["groups"]?.arrayValue?.first?["id"] == "com.example.chat/t")
        #expect(change.data["groups"]?.arrayValue?.first?["html"]?.stringValue?.contains("1 more messages from Michele") == true)
    }

    @Test func groupStreamsHearTheLeaderThenDeliveriesAndRemovals() async throws {
        var fixture = Fixture()
        let group = GroupID(app: Self.app, kind: .thread("t"))
        fixture.deliver("a", thread: "t")
        fixture.deliver("b", thread: "t")
        var stream = Events(fixture.publisher.subscribe(group, viewer: Viewer(), byteLimit: 1 << 20))
        fixture.deliver("other", thread: "elsewhere")
        fixture.deliver("c", thread: "t")
        fixture.remove(["a"])
        // Replacing "b" into another thread removes it from this group.
        fixture.deliver("b", thread: "elsewhere")
        fixture.apply(.appSaved(AppRecord(topic: Self.app, settings: AppSettings(grouping: .byApp))))
        var heard: [String] = []
        while heard.count < 5, let event = try await stream.next() {
            heard.append("\(event.name) \(event.data["id"]?.stringValue ?? "?")")
        }
        #expect(heard == ["leading b", "delivered c", "removed a", "removed b", "removed c"])
        #expect(fixture.publisher.subscribers.count == 1)
    }

    @Test func heartbeatsAreCommentsAndAllStreamsEndWithTheDevice() async throws {
        var fixture = Fixture()
        var stream = fixture.subscribe()
        _ = try await stream.require()
        fixture.publisher.subscribers.heartbeat()
        #expect(try await stream.require().name == ": heartbeat")
        fixture.publisher.subscribers.endAll()
        #expect(try await stream.next() == nil)
        #expect(fixture.publisher.subscribers.isEmpty)
    }

    @Test func aSubscriptionLetGoLeavesTheTable() {
        var fixture = Fixture()
        let staying = fixture.subscribe(["ru"])
        do {
            let stream = fixture.subscribe()
            let sameView = fixture.subscribe()
            #expect(fixture.publisher.subscribers.count == 3)
            #expect(fixture.publisher.subscribers.topics.count == 2)
            _ = (stream, sameView)
        }
        // The view nobody follows any more is no topic either: changes are not encoded for it.
        #expect(fixture.publisher.subscribers.count == 1)
        #expect(fixture.publisher.subscribers.topics.count == 1)
        _ = staying
    }

    @Test func renderingsAreKeptForWatchedViewsAndAFewRecentReads() async throws {
        var fixture = Fixture()
        fixture.deliver("a", thread: "t")
        var watched = fixture.subscribe(limit: 100)
        _ = try await watched.require()
        // Reads of many views (as `?limit=` lets anyone ask for): only the latest few stay rendered.
        for limit in 1...20 {
            _ = fixture.publisher.document(CenterView(viewer: Viewer(), format: .json, notificationLimit: limit))
        }
        #expect(fixture.publisher.renderedViewCount == RenderCache.maximumUnwatchedViews + 1)
        // The watched view was kept: its stream still gets its change.
        fixture.deliver("b", thread: "t")
        #expect(try await watched.require().data["delivered"] == ["b"])
    }
}
