import Foundation
import HuddleCore
import Logging
import ServiceLifecycle

/// Delivers each device's scheduled summary when its time comes: every `interval`, it asks the store which devices
/// hold notifications and when their next summary is (``NotificationStore/holdingDevices()``, one read), and
/// delivers the due ones, each in its device's transaction. Every server sharing a store runs one; the store
/// delivers each summary once, and the other servers follow the change.
struct SummaryDelivery: Service {
    let centers: DeviceCenters
    let clock: @Sendable () -> Date
    let interval: Duration
    let logger: Logger

    init(centers: DeviceCenters, clock: @escaping @Sendable () -> Date, interval: Duration = .seconds(1), logger: Logger) {
        self.centers = centers
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                await deliverDue()
            }
        }
    }

    /// Delivers every summary due now; a failure is logged, and the next round tries again.
    func deliverDue() async {
        let now = clock()
        do {
            for device in try await centers.store.holdingDevices() where device.nextSummary <= now {
                try Task.checkCancellation()
                do {
                    // Through the device's session, so that its center and streams show the summary at once.
                    if let session = try await centers.session(for: device.token) {
                        try await session.deliverSummaries(dueBy: now)
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    logger.error("cannot deliver the summary of device \(device.token): \(error)")
                }
            }
        } catch is CancellationError {
            // The server is shutting down.
        } catch {
            logger.error("cannot find the devices holding notifications for a summary: \(error)")
        }
    }
}
