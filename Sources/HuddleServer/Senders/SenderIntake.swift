import Foundation
import Metrics
import NIOCore

/// The frame every sender API's request goes through, whichever sender it is (APNs' pushes and broadcasts, FCM's
/// sends): its record, begun as it arrives, and at its answer the time it took, the inspector's history, and the
/// sender's counter of answers. Each endpoint does its own checks between the two.
struct SenderIntake: Sendable {
    let log: SenderRequestLog
    /// Whether the port serves TLS (the record says so).
    let tls: Bool
    let clock: @Sendable () -> Date
    /// The counter of answers, by status and refusal (the names `/metrics` has always shown).
    private let counterLabel: String
    /// The counter's dimension that names a refusal: APNs' `reason`, FCM's `error`.
    private let refusalDimension: String
    /// Answers with 200, counted without a look-up (making a counter looks its label and dimensions up in the metrics
    /// registry, under its lock, every time): the sender's own counter, made at its first accepted request (a `static
    /// let`), so that `/metrics` shows none before one.
    private let acceptedCounter: @Sendable () -> Counter

    init(
        log: SenderRequestLog, tls: Bool, counterLabel: String, refusalDimension: String, acceptedCounter: @escaping @Sendable () -> Counter,
        clock: @escaping @Sendable () -> Date
    ) {
        self.log = log
        self.tls = tls
        self.clock = clock
        self.counterLabel = counterLabel
        self.refusalDimension = refusalDimension
        self.acceptedCounter = acceptedCounter
    }

    /// What a request was answered.
    enum Answer: Sendable {
        /// Taken, with its status (200, or a broadcast's 201 or 204).
        case accepted(status: Int)
        /// Refused, with the sender's own name for why (an APNs reason, an FCM error) and Huddle's words.
        case refused(status: Int, reason: String, description: String?)
        /// Cut off unanswered by a fault: no status, and nothing counted.
        case cutOff
    }

    /// A record of a request as it arrives, stamped with the server's clock.
    func begin(
        client: String?, isHTTP2: Bool, method: String, path: String, headers: [(name: String, value: String)] = []
    ) -> SenderRequestRecord {
        SenderRequestRecord(
            receivedAt: clock(), client: client, httpVersion: isHTTP2 ? "HTTP/2" : "HTTP/1.1", tls: tls, method: method, path: path,
            headers: headers)
    }

    /// Completes a record with its answer and the time since `started`, adds it to the history and counts it. A refused
    /// request stored nothing: what the record said it stored is cleared.
    func finish(_ record: inout SenderRequestRecord, messageID: String, answer: Answer, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        record.microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        record.messageID = messageID
        switch answer {
        case .accepted(let status):
            record.status = status
            if status == 200 {
                acceptedCounter().increment()
            } else {
                Counter(label: counterLabel, dimensions: [("status", "\(status)"), (refusalDimension, "")]).increment()
            }
        case .refused(let status, let reason, let description):
            record.status = status
            record.reason = reason
            record.description = description
            record.storedApp = nil
            record.storedIdentifier = nil
            record.eventAction = nil
            Counter(label: counterLabel, dimensions: [("status", "\(status)"), (refusalDimension, reason)]).increment()
        case .cutOff:
            record.status = 0
        }
        log.record(record)
    }
}
