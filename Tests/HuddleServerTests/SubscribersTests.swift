import HuddleCore
@testable import HuddleServer
import NIOCore
import HuddleTestSupport
import Testing

/// The streams' table: each topic's events kept once, read by each stream from its own position.
@Suite(.timeLimit(.minutes(1))) struct SubscribersTests {
    static let english = Subscribers.Topic.center(CenterView(viewer: Viewer(languages: ["en"]), format: .json))
    static let french = Subscribers.Topic.center(CenterView(viewer: Viewer(languages: ["fr"]), format: .json))

    static func event(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func take(_ subscription: Subscription) async -> String? {
        await subscription.next().map { String(buffer: $0) }
    }

    @Test func aStreamTakesItsPreludeThenItsTopicsEventsFromWhenItJoined() async {
        let subscribers = Subscribers()
        let first = Subscription(topic: Self.english, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        subscribers.publish([Self.english: Self.event("1;")])
        let joining = Subscription(topic: Self.english, prelude: Self.event("start;"), byteLimit: 1 << 20, subscribers: subscribers)
        subscribers.publish([Self.english: Self.event("2;")])
        subscribers.publish([Self.english: Self.event("3;")])
        #expect(await Self.take(first) == "1;2;3;")
        #expect(await Self.take(joining) == "start;2;3;")
        subscribers.publish([Self.english: Self.event("4;")])
        #expect(await Self.take(first) == "4;")
        #expect(await Self.take(joining) == "4;")
    }

    @Test func eachTopicGetsOnlyItsOwnEvents() async {
        let subscribers = Subscribers()
        let english = Subscription(topic: Self.english, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        let french = Subscription(topic: Self.french, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        subscribers.publish([Self.english: Self.event("hello;"), Self.french: Self.event("bonjour;")])
        subscribers.publish([Self.french: Self.event("salut;")])
        #expect(await Self.take(english) == "hello;")
        #expect(await Self.take(french) == "bonjour;salut;")
        #expect(Set(subscribers.topics) == [Self.english, Self.french])
    }

    @Test func streamsAtOnePositionShareOneJoinedBuffer() async throws {
        let subscribers = Subscribers()
        let streams = (0..<3).map { _ in Subscription(topic: Self.english, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers) }
        for index in 0..<10 { subscribers.publish([Self.english: Self.event("event \(index);")]) }
        var taken: [ByteBuffer] = []
        for stream in streams { taken.append(try #require(await stream.next())) }
        #expect(Set(taken.map { String(buffer: $0) }).count == 1)
        let addresses = taken.map { $0.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) } }
        #expect(Set(addresses).count == 1, "each stream copied the events into a buffer of its own")
    }

    /// A table that counts, by topic, the streams that started waiting.
    static func observedTable() -> (Subscribers, Observed<[Subscribers.Topic: Int]>) {
        let waits = Observed<[Subscribers.Topic: Int]>([:])
        return (Subscribers { topic in waits.update { $0[topic, default: 0] += 1 } }, waits)
    }

    @Test func aWaitingStreamGetsTheNextEventAtOnce() async {
        let (subscribers, waits) = Self.observedTable()
        let stream = Subscription(topic: Self.english, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        async let taken = Self.take(stream)
        #expect(await waits.wait { $0[Self.english] == 1 })
        subscribers.publish([Self.english: Self.event("now;")])
        #expect(await taken == "now;")
        #expect(stream.waitingBytes == 0)
    }

    @Test func eventsEveryStreamHasTakenAreForgotten() async {
        let subscribers = Subscribers()
        let streams = (0..<2).map { _ in Subscription(topic: Self.english, prelude: nil, byteLimit: 100, subscribers: subscribers) }
        for index in 0..<50 {
            subscribers.publish([Self.english: Self.event("event \(index % 10);")])
            for stream in streams { _ = await stream.next() }
            #expect(subscribers.keptBytes <= 100 + 9)
        }
        #expect(subscribers.count == 2)
    }

    @Test func aStreamFurtherBehindThanItsLimitEndsAndHoldsNothing() async {
        let subscribers = Subscribers()
        let reading = Subscription(topic: Self.english, prelude: nil, byteLimit: 100, subscribers: subscribers)
        let stalled = Subscription(topic: Self.english, prelude: nil, byteLimit: 100, subscribers: subscribers)
        for index in 0..<50 {
            subscribers.publish([Self.english: Self.event("event \(index % 10);")])
            _ = await reading.next()
        }
        #expect(subscribers.count == 1)
        #expect(subscribers.keptBytes <= 100 + 9)
        // It ended where it was: its client resumes from its last event's id on a new stream.
        #expect(await stalled.next() == nil)
        subscribers.publish([Self.english: Self.event("later;")])
        #expect(await Self.take(reading) == "later;")
    }

    @Test func endingEveryStreamLetsEachTakeWhatWasPublishedFirst() async {
        let (subscribers, waits) = Self.observedTable()
        let behind = Subscription(topic: Self.english, prelude: Self.event("start;"), byteLimit: 1 << 20, subscribers: subscribers)
        let waiting = Subscription(topic: Self.french, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        async let waited = Self.take(waiting)
        #expect(await waits.wait { $0[Self.french] == 1 })
        subscribers.publish([Self.english: Self.event("1;")])
        subscribers.endAll()
        #expect(subscribers.isEmpty)
        #expect(subscribers.topics.isEmpty)
        #expect(await waited == nil)
        #expect(await Self.take(behind) == "start;1;")
        #expect(await Self.take(behind) == nil)
    }

    @Test func cancellingAWaitingStreamEndsIt() async {
        let (subscribers, waits) = Self.observedTable()
        let stream = Subscription(topic: Self.english, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        let reader = Task { await stream.next() }
        #expect(await waits.wait { $0[Self.english] == 1 })
        reader.cancel()
        #expect(await reader.value == nil)
        #expect(subscribers.isEmpty)
        subscribers.publish([Self.english: Self.event("late;")])
        #expect(await stream.next() == nil)
    }

    @Test func theLastStreamLeavingForgetsItsTopic() {
        let subscribers = Subscribers()
        var stream: Subscription? = Subscription(topic: Self.english, prelude: nil, byteLimit: 1 << 20, subscribers: subscribers)
        subscribers.publish([Self.english: Self.event("1;")])
        #expect(subscribers.topics == [Self.english])
        #expect(subscribers.keptBytes == 2)
        withExtendedLifetime(stream) {}
        stream = nil
        #expect(subscribers.topics.isEmpty)
        #expect(subscribers.keptBytes == 0)
        #expect(subscribers.isEmpty)
    }
}

/// Every stream's events are framed in one place.
@Suite struct ServerSentEventTests {
    @Test func anEventHasItsIdNameAndOneDataLinePerLine() {
        #expect(ServerSentEvent.event(id: 7, name: "change", data: #"{"a":1}"#) == "id: 7\nevent: change\ndata: {\"a\":1}\n\n")
        #expect(ServerSentEvent.event(name: "leading", data: "x") == "event: leading\ndata: x\n\n")
        // A line break cannot end the event early or start a field of its own.
        #expect(ServerSentEvent.event(name: "e", data: "a\nid: 9\r\nb\rc") == "event: e\ndata: a\ndata: id: 9\ndata: \ndata: b\ndata: c\n\n")
        #expect(ServerSentEvent.head(id: 3, name: "center") + "{}" + ServerSentEvent.end == "id: 3\nevent: center\ndata: {}\n\n")
    }
}
