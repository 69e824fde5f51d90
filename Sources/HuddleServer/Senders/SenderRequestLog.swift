import Foundation
import HuddleAPNs
import NIOCore
import Synchronization

/// The request inspector's history: the last requests to the sender APIs, oldest out first past a
/// count or a byte limit, and the live viewers to wake when one is added.
///
/// Recording is an append under a lock and a wake-up per viewer: no encoding, no waiting, so that it stays
/// off the push's path. Records are encoded when they are read.
final class SenderRequestLog: Sendable {
    struct Configuration: Sendable {
        /// The most requests kept.
        var maximumRecords = 10_000
        /// The most bytes of records kept (their payloads, mostly).
        var maximumBytes = 16 << 20
    }

    /// Which records a reader wants; `nil` filters let everything through.
    struct Filter: Sendable {
        var device: String?
        var topic: String?
        var status: Int?
        var reason: String?
        var since: Date?
        var until: Date?
        /// Only records numbered above this (a stream resuming, or a client polling).
        var after: UInt64?
        /// The `apns-push-type` sent (`alert` when none was: APNs takes a push without one as an alert).
        var pushType: String?
        /// Lowercase: ids are compared without regard to case.
        var messageID: String?
        /// Lowercase, as ``messageID``.
        var uniqueID: String?

        private static func lowercased(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }

        func admits(_ record: SenderRequestRecord) -> Bool {
            if let device, record.deviceToken != device { return false }
            if let topic, record.topic != topic { return false }
            if let pushType, (record.headers.first { $0.name == "apns-push-type" }?.value ?? "alert") != pushType { return false }
            // `messageID` is lowercased where the filter is read; ids are ASCII, so this compares without copying.
            if let messageID, !record.messageID.utf8.elementsEqual(messageID.utf8, by: { Self.lowercased($0) == $1 }) { return false }
            // Unique ids are stored lowercase.
            if let uniqueID, record.uniqueID != uniqueID { return false }
            if let status, record.status != status { return false }
            if let reason, record.reason != reason { return false }
            if let since, record.receivedAt < since { return false }
            if let until, record.receivedAt > until { return false }
            if let after, record.id <= after { return false }
            return true
        }
    }

    let configuration: Configuration
    private let state = Mutex(State())

    private struct State {
        /// Oldest first, numbered consecutively. A ring, so that adding one and letting the oldest go moves no other
        /// record, and each record's size is kept beside it, so that letting it go does not read the record again.
        var records = CircularBuffer<SenderRequestRecord>()
        var sizes = CircularBuffer<Int>()
        var bytes = 0
        var lastID: UInt64 = 0
        var viewers: [UInt64: AsyncStream<Void>.Continuation] = [:]
        var nextViewer: UInt64 = 0

        var count: Int { records.count }

        /// Where the record numbered `id` is, if it is kept. The kept records are numbered up to `lastID` without a gap
        /// (only the oldest ever go), so the oldest's number follows from their count.
        func offset(of id: UInt64) -> Int? {
            let oldest = lastID + 1 - UInt64(records.count)
            guard id >= oldest, id <= lastID else { return nil }
            return Int(id - oldest)
        }
    }

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Adds a finished request, numbering it, and wakes the live viewers.
    func record(_ record: SenderRequestRecord) {
        var record = record
        let viewers = state.withLock { state in
            state.lastID += 1
            record.id = state.lastID
            let size = record.byteCount
            state.records.append(record)
            state.sizes.append(size)
            state.bytes += size
            while state.count > configuration.maximumRecords || (state.bytes > configuration.maximumBytes && state.count > 1) {
                // Dropped in place: `removeFirst()` would copy the record out to return it.
                state.records.removeFirst(1)
                state.bytes -= state.sizes.removeFirst()
            }
            return Array(state.viewers.values)
        }
        for viewer in viewers { viewer.yield() }
    }

    /// The records a filter admits, newest first, at most `limit`: the newest ones, or with the filter's
    /// `after` the ones just above that number, so that a client polling with the highest number it has
    /// loses none when more than `limit` came meanwhile.
    func records(_ filter: Filter, limit: Int) -> [SenderRequestRecord] {
        if let after = filter.after {
            // Nothing of ours is numbered above our last number, or above one from before a restart.
            guard after < lastID else { return [] }
            return records(after: after, admittedBy: filter, limit: limit).records.reversed()
        }
        return state.withLock { state in
            var found: [SenderRequestRecord] = []
            var offset = state.count - 1
            while offset >= 0, found.count < limit {
                let record = state.records[offset: offset]
                if filter.admits(record) { found.append(record) }
                offset -= 1
            }
            return found
        }
    }

    /// What a live viewer reads next: the records after `position` that `filter` admits, oldest first, at
    /// most `limit`, and the position to read from next (the last record looked at). Each record is looked
    /// at once per viewer, matching or not, and none is skipped when more than `limit` wait. A position past
    /// the last record is another numbering (a viewer resuming after this server started again): it reads
    /// the whole history.
    func records(
        after position: UInt64, admittedBy filter: Filter, limit: Int
    ) -> (records: [SenderRequestRecord], position: UInt64) {
        state.withLock { state in
            let start = position > state.lastID ? 0 : position
            guard state.count > 0 else { return ([], start) }
            // Numbers are consecutive, so the record after `start` is found without a search.
            var offset = state.offset(of: start).map { $0 + 1 } ?? 0
            var found: [SenderRequestRecord] = []
            var reached = start
            while offset < state.count, found.count < limit {
                let record = state.records[offset: offset]
                if filter.admits(record) { found.append(record) }
                reached = record.id
                offset += 1
            }
            return (found, reached)
        }
    }

    func record(id: UInt64) -> SenderRequestRecord? {
        state.withLock { state in
            state.offset(of: id).map { state.records[offset: $0] }
        }
    }

    /// The number of the last request recorded.
    var lastID: UInt64 { state.withLock { $0.lastID } }

    /// How many records and bytes are kept.
    var size: (records: Int, bytes: Int) { state.withLock { ($0.count, $0.bytes) } }

    /// A wake-up at once (a viewer resuming reads what already waits for it), then one each time a request
    /// is recorded and at each ``heartbeat()``, until the stream is let go; several wake-ups that the viewer
    /// has not taken yet count as one.
    func wakeUps() -> AsyncStream<Void> {
        endableWakeUps().wakeUps
    }

    /// ``wakeUps()``, and what ends them (they finish once it is called).
    func endableWakeUps() -> (wakeUps: AsyncStream<Void>, end: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
        let id = state.withLock { state in
            state.nextViewer += 1
            state.viewers[state.nextViewer] = continuation
            return state.nextViewer
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.viewers.removeValue(forKey: id) }
        }
        return (stream, { continuation.finish() })
    }

    /// Wakes every viewer with nothing new, so that its stream writes a heartbeat.
    @Sendable func heartbeat() {
        for viewer in state.withLock({ Array($0.viewers.values) }) { viewer.yield() }
    }

    /// Forgets every record (a test starting afresh); numbering goes on, so that a viewer's position stays
    /// meaningful.
    func clear() {
        state.withLock { state in
            state.records.removeAll()
            state.sizes.removeAll()
            state.bytes = 0
        }
    }

    /// How many live viewers are open.
    var viewerCount: Int { state.withLock { $0.viewers.count } }
}
