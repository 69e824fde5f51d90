import Foundation
public import Logging

/// Log lines written to a file descriptor (standard error) by a thread of their own.
///
/// A log call formats its line, queues it and returns, so that an event loop that logs never waits on the write:
/// a write to standard error blocks for as long as whatever reads it does not (a terminal scrolled back, a pipe to
/// a collector that stalls). The queue holds at most ``maximumQueuedBytes``; lines past that are dropped and
/// counted, and the count is written once the reader takes lines again, so memory stays bounded when it never does.
public final class QueuedLogWriter: @unchecked Sendable {
    /// Standard error, as `huddle serve` logs.
    public static let standardError = QueuedLogWriter(fileDescriptor: STDERR_FILENO)

    /// The most bytes of lines that wait for the writer.
    public let maximumQueuedBytes: Int
    private let fileDescriptor: Int32
    // Guards everything below; the writer thread waits on it for lines. (A condition, which Synchronization's
    // Mutex has not: hence `@unchecked Sendable`, with every field read and written under it.)
    private let condition = NSCondition()
    private var queued: [String] = []
    private var queuedBytes = 0
    private var dropped = 0
    /// Whether the writer thread is writing lines it took (``flush(within:)`` waits for that too).
    private var isWriting = false
    private var thread: Thread?

    /// - Parameter fileDescriptor: where the lines go; it stays open (the writer does not own it).
    public init(fileDescriptor: Int32, maximumQueuedBytes: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    /// Queues a line (with its newline), or counts it dropped when the queue is full.
    public func write(_ line: String) {
        condition.lock()
        defer { condition.unlock() }
        if thread == nil { startThread() }
        guard queuedBytes + line.utf8.count <= maximumQueuedBytes else {
            dropped += 1
            return
        }
        queued.append(line)
        queuedBytes += line.utf8.count
        condition.signal()
    }

    /// Waits until every queued line is written, for at most `limit`: a process about to exit calls it, so that
    /// its last lines come before its exit (and before a failure it reports itself).
    public func flush(within limit: Duration = .seconds(2)) {
        let deadline = Date().addingTimeInterval(Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !queued.isEmpty || dropped > 0 || isWriting {
            guard condition.wait(until: deadline) else { return }
        }
    }

    /// How many lines wait, and how many were dropped since the writer last caught up (for tests).
    var backlog: (lines: Int, dropped: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queued.count, dropped)
    }

    /// Starts the writer's thread, at the first line; it lives as long as the process. Called with the lock held.
    private func startThread() {
        let thread = Thread { [self] in writeForever() }
        thread.name = "huddle-log"
        self.thread = thread
        thread.start()
    }

    private func writeForever() {
        while true {
            condition.lock()
            while queued.isEmpty && dropped == 0 { condition.wait() }
            var text = queued.joined()
            if dropped > 0 { text += "\(dropped) log lines were dropped: their reader did not keep up\n" }
            queued = []
            queuedBytes = 0
            dropped = 0
            isWriting = true
            condition.unlock()
            writeAll(text)
            condition.lock()
            isWriting = false
            // Wakes a flush waiting for the queue to empty.
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Writes the whole text, however many writes that takes; a descriptor that fails (closed) loses it.
    private func writeAll(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(fileDescriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// A swift-log handler whose lines go through a ``QueuedLogWriter``: `<time> <level> <label>: <message>`, then the
/// metadata as `key=value` pairs in key order. A line break inside is written as `\n`: messages quote what strangers
/// sent, and must not be able to start a line of their own.
public struct QueuedLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let writer: QueuedLogWriter

    public init(label: String, level: Logger.Level = .info, writer: QueuedLogWriter = .standardError) {
        self.label = label
        logLevel = level
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = "\(Date().formatted(.iso8601)) \(event.level) \(label): \(event.message)"
        let all = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        for (key, value) in all.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        writer.write(Self.escapingLineBreaks(line) + "\n")
    }

    /// The text with its line breaks written out, scalar by scalar: `"\r\n"` is one `Character`, which a replacement
    /// of either alone would let by.
    static func escapingLineBreaks(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": escaped.append(contentsOf: #"\r"#.unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
