import HuddleCore
import Testing

/// Collects what a stream of notices delivers, so that a test can wait for what it expects.
actor NoticeRecorder {
    private(set) var notices: [ChangeNotice] = []
    private(set) var isFinished = false

    static func recording(_ stream: AsyncStream<ChangeNotice>?) throws -> NoticeRecorder {
        let stream = try #require(stream, "a PostgreSQL store always has notices from other servers")
        let recorder = NoticeRecorder()
        Task {
            for await notice in stream { await recorder.append(notice) }
            await recorder.finish()
        }
        return recorder
    }

    private func append(_ notice: ChangeNotice) { notices.append(notice) }
    private func finish() { isFinished = true }

    /// Waits until the notices so far satisfy `condition`.
    /// - Throws: when they do not within `timeout`, naming what was awaited and what came.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(15), until condition: ([ChangeNotice], Bool) -> Bool
    ) async throws -> [ChangeNotice] {
        let deadline = ContinuousClock.now + timeout
        while !condition(notices, isFinished) {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "timed out waiting for \(what); received \(notices), finished: \(isFinished)")
            }
            try await Task.sleep(for: .milliseconds(20))
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
