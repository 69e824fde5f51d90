import Foundation
@testable import HuddleServer
import Logging
import Synchronization
import Testing

/// The server's log: lines queued by the caller and written by a thread of their own, so that no event loop waits
/// on a reader of standard error.
@Suite(.timeLimit(.minutes(1))) struct QueuedLogTests {
    /// A pipe, and everything read from its reading end until the writing end is closed.
    final class Pipe: Sendable {
        let readEnd: Int32
        let writeEnd: Int32
        private let received = Mutex<[UInt8]>([])
        /// Ends when the reading thread has read the end of the pipe.
        private let readToTheEnd: AsyncStream<Void>
        private let reachedTheEnd: AsyncStream<Void>.Continuation

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            readEnd = ends[0]
            writeEnd = ends[1]
            (readToTheEnd, reachedTheEnd) = AsyncStream<Void>.makeStream()
        }

        /// Starts reading on a thread of its own, until the writing end is closed.
        func startReading() {
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    received.withLock { $0 += buffer[..<count] }
                }
                reachedTheEnd.finish()
            }.start()
        }

        /// Closes the writing end and returns every line read.
        func finish() async -> [String] {
            close(writeEnd)
            for await _ in readToTheEnd {}
            close(readEnd)
            return received.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map(String.init)
        }
    }

    @Test func writesEachLineWithItsLevelLabelAndMetadataInOrder() async throws {
        let pipe = try Pipe()
        pipe.startReading()
        let writer = QueuedLogWriter(fileDescriptor: pipe.writeEnd)
        var logger = Logger(label: "huddle.test") { QueuedLogHandler(label: $0, level: .info, writer: writer) }
        logger[metadataKey: "device"] = "abc"
        logger.info("first")
        logger.debug("not at this level")
        logger.error("second", metadata: ["apns-id": "42"])
        logger.warning("a stranger's text\r\n2026-01-01T00:00:00Z info huddle: forged\n")
        writer.flush()
        let lines = await pipe.finish()
        #expect(lines.count == 3)
        #expect(lines.last?.hasSuffix(#"warning huddle.test: a stranger's text\r\n2026-01-01T00:00:00Z info huddle: forged\n device=abc"#) == true, "\(lines)")
        #expect(lines.first?.hasSuffix(" info huddle.test: first device=abc") == true, "\(lines)")
        #expect(lines[1].hasSuffix(" error huddle.test: second apns-id=42 device=abc"), "\(lines)")
        // Each line starts with its time.
        #expect(lines.allSatisfy { $0.split(separator: " ").first.flatMap { try? Date.ISO8601FormatStyle().parse(String($0)) } != nil })
    }

    /// A reader that stops reading: logging goes on without waiting (the test would hang here otherwise), what waits
    /// stays within the queue's bound, and once the reader reads again every line is there or counted as dropped.
    @Test func aReaderThatStopsNeitherBlocksTheLoggerNorGrowsTheQueue() async throws {
        let pipe = try Pipe()
        let writer = QueuedLogWriter(fileDescriptor: pipe.writeEnd, maximumQueuedBytes: 8 << 10)
        let logger = Logger(label: "flood") { QueuedLogHandler(label: $0, writer: writer) }
        let total = 20_000
        // About 1.6 MB: far past what the pipe (64 KiB) and the queue hold.
        for index in 0..<total { logger.info("line \(index) \(String(repeating: "x", count: 40))") }
        let backlog = writer.backlog
        #expect(backlog.dropped > 0)
        #expect(backlog.lines * 80 <= writer.maximumQueuedBytes)

        pipe.startReading()
        writer.flush(within: .seconds(30))
        logger.info("last")
        writer.flush(within: .seconds(30))
        let lines = await pipe.finish()
        #expect(lines.last?.hasSuffix("flood: last") == true)
        let written = lines.filter { $0.contains(" flood: line ") }.count
        let droppedCounts = lines.compactMap { line -> Int? in
            guard line.hasSuffix("log lines were dropped: their reader did not keep up") else { return nil }
            return Int(line.prefix { $0.isNumber })
        }
        #expect(!droppedCounts.isEmpty)
        #expect(written + droppedCounts.reduce(0, +) == total)
        // The lines written are in the order they were logged.
        let numbers = lines.compactMap { line in line.range(of: " flood: line ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) } }
        #expect(numbers == numbers.sorted())
    }
}
