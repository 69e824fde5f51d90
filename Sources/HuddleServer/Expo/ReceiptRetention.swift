import Foundation
import HuddleCore
import Logging
import ServiceLifecycle

/// Forgets delivery receipts past their day, and the oldest past a bound, every `interval`: the table is kept small
/// whether or not anyone asks for receipts (a sender that never polls, or a stranger sending to tokens of no app,
/// leaves receipts behind). Every server sharing a store runs one; deleting twice deletes nothing more.
struct ReceiptRetention: Service {
    let store: any NotificationStore
    let clock: @Sendable () -> Date
    let interval: Duration
    let logger: Logger

    /// How long receipts are kept (Expo's page: "push receipts are cleared after 24 hours").
    static let lifetime: TimeInterval = 86_400
    /// The most receipts kept: past it, the oldest go first. At Expo's own rate of 600 notifications a second a project
    /// fills it in half an hour; a test double's history needs far less, and a stranger's flood stays bounded.
    static let maximumKept = 1_000_000

    init(store: any NotificationStore, clock: @escaping @Sendable () -> Date, interval: Duration = .seconds(60), logger: Logger) {
        self.store = store
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    func run() async throws {
        await Periodically.run(every: interval) { await forgetOld() }
    }

    /// One round; a failure is logged, and the next round tries again.
    func forgetOld() async {
        do {
            let forgotten = try await store.forgetReceipts(createdBefore: clock() - Self.lifetime, keepingAtMost: Self.maximumKept)
            if forgotten > 0 { logger.debug("forgot \(forgotten) delivery receipts") }
        } catch {
            logger.warning("cannot forget old delivery receipts: \(error)")
        }
    }
}
