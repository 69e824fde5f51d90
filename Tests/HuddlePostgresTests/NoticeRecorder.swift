import HuddleCore
import HuddleTestSupport
import Testing

/// Collects what a stream of notices delivers, so that a test can wait for what it expects.
final class NoticeRecorder: Sendable {
    private struct Received: Sendable {
        var notices: [ChangeNotice] = []
        var isFinished = false
    }

    private let received = Observed(Received())

    var notices: [ChangeNotice] { received.value.notices }

    static func recording(_ stream: AsyncStream<ChangeNotice>?) throws -> NoticeRecorder {
        let stream = try #require(stream, "a PostgreSQL store always has notices from other servers")
        let recorder = NoticeRecorder()
        Task {
            for await notice in stream { recorder.received.update { $0.notices.append(notice) } }
            recorder.received.update { $0.isFinished = true }
        }
        return recorder
    }

    /// Waits until the notices so far (and whether they ended) satisfy `condition`.
    /// - Throws: when they do not within `timeout`, naming what was awaited and what came.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(15), until condition: @escaping @Sendable ([ChangeNotice], Bool) -> Bool
    ) async throws -> [ChangeNotice] {
        guard await received.wait(atMost: timeout, until: { condition($0.notices, $0.isFinished) }) else {
            let now = received.value
            throw TimedOut(description: "timed out waiting for \(what); received \(now.notices), finished: \(now.isFinished)")
        }
        return notices
    }

    /// Waits for the notices to reach `count`.
    @discardableResult
    func wait(forCount count: Int, _ what: String) async throws -> [ChangeNotice] {
        try await wait(for: what) { notices, _ in notices.count >= count }
    }
}

/// What a wait for notices that never came throws, with what did come.
struct TimedOut: Error, CustomStringConvertible {
    var description: String
}
