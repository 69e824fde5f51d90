public import Logging
import Synchronization

/// Keeps what code under test logs, so that a test can check it (a failure's detail goes to the log and only
/// there) instead of printing lines that look like failures in a passing run.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// Every line logged so far: `level message metadata`.
    public var messages: [String] { lines.withLock { $0 } }

    /// A logger whose lines this recorder keeps.
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in Handler(recorder: self) }
    }

    fileprivate func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.record("\(event.level) \(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        }
    }
}
