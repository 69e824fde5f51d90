import Foundation
import HuddleCore
@testable import HuddleServer
import NIOCore
import Testing

/// The live streams' fan-out and resumption, on a center changed by hand.
@Suite(.timeLimit(.minutes(1))) struct CenterFeedTests {
    static let app = "com.example.chat"
    static let start = Date(timeIntervalSince1970: 1_528_304_400)

    /// A center with one app whose messages summarize, and a feed that has seen nothing yet.
    struct Fixture {
        var center = Center()
        let feed = CenterFeed(horizon: 0)
        var number: UInt64 = 0

        init() throws {
            try center.register(AppRegistration(bundleIdentifier: CenterFeedTests.app))
            try center.setCategories(
                [NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%u more messages from %@"))], for: CenterFeedTests.app)
        }

        mutating func deliver(_ id: String, thread: String, argument: String = "Teja", category: String = "msg") throws {
            number += 1
            var content = NotificationContent(title: .plain("Title"), body: .plain(id))
            content.threadIdentifier = thread
            content.categoryIdentifier = category
            content.summaryArgument = argument
            let delivery = try #require(try center.deliver(
                DeliveredNotification(
                    app: CenterFeedTests.app, request: NotificationRequest(identifier: id, content: content),
                    stamp: DeliveryStamp(date: CenterFeedTests.start.addingTimeInterval(Double(number)), sequence: number))))
            feed.publish(ChangeEffect(number: number, groups: [delivery.group], delivered: [id]), center: center)
        }

        mutating func remove(_ ids: [String]) throws {
            number += 1
            let removals = try center.removeNotifications(withIdentifiers: ids, app: CenterFeedTests.app)
            feed.publish(ChangeEffect(number: number, groups: Set(removals.map(\.group)), removed: ids), center: center)
        }

        func subscribe(
            _ languages: [String] = ["en"], format: CenterFeed.Format = .json, limit: Int? = nil, after: UInt64? = nil,
            bufferBytes: Int = 1 << 20
        ) -> CenterFeed.Stream {
            let view = CenterFeed.View(viewer: Viewer(languages: languages), format: format, notificationLimit: limit)
            return feed.subscribe(CenterFeed.Subscription(view: view, resumingAfter: after, bufferBytes: bufferBytes), center: center)
        }
    }

    /// The next event's id, name and data.
    static func next(_ iterator: inout CenterFeed.Stream.AsyncIterator) async throws -> (id: String?, name: String, data: JSONValue) {
        let event = try #require(await iterator.next())
        var id: String?
        var name = ""
        var data = JSONValue.null
        for line in String(buffer: event.bytes).split(separator: "\n") {
            if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = try JSONParser.parse(String(line.dropFirst(6))) }
            if line.hasPrefix(": ") { name = String(line) }
        }
        return (id, name, data)
    }

    @Test func aNewStreamGetsTheCenterThenEachChangeForItsViewer() async throws {
        var fixture = try Fixture()
        try fixture.deliver("a", thread: "t", argument: "Michele", category: "")
        var english = fixture.subscribe().makeAsyncIterator()
        var russian = fixture.subscribe(["ru"]).makeAsyncIterator()
        let first = try await Self.next(&english)
        #expect(first.id == "1")
        #expect(first.name == "center")
        #expect(first.data["center"]?["groups"]?.arrayValue?.count == 1)
        _ = try await Self.next(&russian)

        try fixture.deliver("b", thread: "t", argument: "Teja", category: "")
        let change = try await Self.next(&english)
        #expect(change.id == "2")
        #expect(change.name == "change")
        #expect(change.data["delivered"] == ["b"])
        #expect(change.data["groups"]?.arrayValue?.first?["position"] == 0)
        #expect(change.data["groups"]?.arrayValue?.first?["group"]?["summary"] == "1 more notification from Michele")
        let inRussian = try await Self.next(&russian)
        #expect(inRussian.data["groups"]?.arrayValue?.first?["group"]?["summary"] == "Ещё 1 уведомление от Michele")
        #expect(fixture.feed.subscriberCount == 2)
    }

    @Test func changesCarryPositionsAndRemovedGroups() async throws {
        var fixture = try Fixture()
        try fixture.deliver("a", thread: "one")
        try fixture.deliver("b", thread: "two")
        var stream = fixture.subscribe(after: 2).makeAsyncIterator()
        try fixture.deliver("c", thread: "one")
        let moved = try await Self.next(&stream)
        #expect(moved.data["groups"]?.arrayValue?.first?["position"] == 0)
        #expect(moved.data["groups"]?.arrayValue?.first?["group"]?["id"] == "com.example.chat/one")
        try fixture.remove(["b"])
        let removed = try await Self.next(&stream)
        #expect(removed.data["groups"] == [])
        #expect(removed.data["removedGroups"] == ["com.example.chat/two"])
        #expect(removed.data["removed"] == ["b"])
    }

    @Test func aResumingStreamGetsOnlyTheGroupsChangedSinceItsNumber() async throws {
        var fixture = try Fixture()
        try fixture.deliver("a", thread: "one")
        try fixture.deliver("b", thread: "two")
        try fixture.deliver("c", thread: "three")
        try fixture.remove(["b"])
        try fixture.deliver("d", thread: "one")

        var sinceTwo = fixture.subscribe(after: 2).makeAsyncIterator()
        let catchUp = try await Self.next(&sinceTwo)
        #expect(catchUp.id == "5")
        #expect(catchUp.name == "change")
        #expect(catchUp.data["groups"]?.arrayValue?.compactMap { $0["group"]?["id"]?.stringValue } == ["com.example.chat/one", "com.example.chat/three"])
        #expect(catchUp.data["removedGroups"] == ["com.example.chat/two"])

        // Up to date: the next event is the next change.
        var upToDate = fixture.subscribe(after: 5).makeAsyncIterator()
        try fixture.deliver("e", thread: "three")
        #expect(try await Self.next(&upToDate).id == "6")

        // Ahead of the feed, or before its horizon: the whole center.
        var ahead = fixture.subscribe(after: 99).makeAsyncIterator()
        #expect(try await Self.next(&ahead).name == "center")
        let later = CenterFeed(horizon: 3)
        var beforeHorizon = later.subscribe(
            CenterFeed.Subscription(view: CenterFeed.View(viewer: Viewer(), format: .json), resumingAfter: 2), center: fixture.center
        ).makeAsyncIterator()
        #expect(try await Self.next(&beforeHorizon).name == "center")
    }

    @Test func aStreamFurtherBehindThanItsBytesIsClosed() async throws {
        var fixture = try Fixture()
        try fixture.deliver("a", thread: "one")
        // One event may always wait, however large; the next one would pass the limit.
        var stalled = fixture.subscribe(bufferBytes: 64).makeAsyncIterator()
        var reading = fixture.subscribe().makeAsyncIterator()
        #expect(fixture.feed.subscriberCount == 2)
        try fixture.deliver("b", thread: "two")
        #expect(fixture.feed.subscriberCount == 1)
        #expect(try await Self.next(&stalled).name == "center")
        #expect(await stalled.next() == nil)
        // A stream that keeps up takes every change, whatever their sizes add up to.
        _ = try await Self.next(&reading)
        for index in 0..<20 {
            try fixture.deliver("c\(index)", thread: "three")
            #expect(try await Self.next(&reading).name == "change")
        }
        #expect(fixture.feed.subscriberCount == 1)
    }

    @Test func aResetSendsTheWholeCenterAndForgetsWhatCameBefore() async throws {
        var fixture = try Fixture()
        try fixture.deliver("a", thread: "one")
        var stream = fixture.subscribe(after: 1).makeAsyncIterator()
        fixture.feed.publish(ChangeEffect(number: 2, reset: true), center: fixture.center)
        let reset = try await Self.next(&stream)
        #expect(reset.name == "center")
        #expect(reset.id == "2")
        var resuming = fixture.subscribe(after: 1).makeAsyncIterator()
        #expect(try await Self.next(&resuming).name == "center")
    }

    @Test func htmlStreamsCarryThePagesMarkup() async throws {
        var fixture = try Fixture()
        try fixture.deliver("a", thread: "t", argument: "Michele")
        var stream = fixture.subscribe(format: .html).makeAsyncIterator()
        let center = try await Self.next(&stream)
        #expect(center.data["html"]?.stringValue?.contains(#"data-group="com.example.chat/t""#) == true)
        try fixture.deliver("b", thread: "t", argument: "Teja")
        let change = try await Self.next(&stream)
        #expect(change.data["groups"]?.arrayValue?.first?["id"] == "com.example.chat/t")
        #expect(change.data["groups"]?.arrayValue?.first?["html"]?.stringValue?.contains("1 more messages from Michele") == true)
    }

    @Test func heartbeatsAreComments() async throws {
        let fixture = try Fixture()
        var stream = fixture.subscribe().makeAsyncIterator()
        _ = try await Self.next(&stream)
        fixture.feed.heartbeat()
        #expect(try await Self.next(&stream).name == ": heartbeat")
    }

    @Test func aStreamTooFarBehindIsClosedAndAllEndWithTheDevice() async throws {
        var fixture = try Fixture()
        // Bytes are no limit here: the count of waiting events is.
        let slow = fixture.subscribe(limit: 1, bufferBytes: .max)
        let other = fixture.subscribe(limit: 1, bufferBytes: .max)
        for index in 0..<CenterFeed.bufferLimit { try fixture.deliver("n\(index)", thread: "t") }
        #expect(fixture.feed.subscriberCount == 0)
        var count = 0
        for await _ in slow { count += 1 }
        // The center, then as many changes as fit.
        #expect(count == CenterFeed.bufferLimit)
        _ = other

        let last = fixture.subscribe()
        fixture.feed.finishAll()
        var remaining = 0
        for await _ in last { remaining += 1 }
        #expect(remaining == 1)
    }
}
