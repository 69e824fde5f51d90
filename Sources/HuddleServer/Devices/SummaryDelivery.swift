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
                    // Through the device's session when it is in memory, so that its center and streams show the summary
                    // at once; else in the store alone (a session loaded later reads it with the snapshot): a summary
                    // is no reason to load a device nobody looks at.
                    if let session = await centers.loadedOrLoadingSession(for: device.token) {
                        try await session.deliverSummaries(dueBy: now)
                    } else if let last = try await centers.store.deliverSummaries(device: device.token, dueBy: now).last?.number,
                        let session = await centers.loadedOrLoadingSession(for: device.token)
                    {
                        // Loaded meanwhile, perhaps from a snapshot read before the summary: it catches up now.
                        try await session.catchUp(through: last)
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
