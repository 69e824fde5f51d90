import Foundation
import HuddleCore
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers each device's scheduled summary when its time comes: every `interval`, it asks the store which devices
/// hold notifications and since when (``NotificationStore/holdingDevices(knowingSettingsAsOf:)``, one read), and
/// delivers the due ones, each in its device's transaction. Every server sharing a store runs one; the store
/// delivers each summary once, and the other servers follow the change.
///
/// Each device's summary times and next summary are remembered from round to round (``SummaryTimes``): a round
/// reads and parses the settings only of devices that changed since the last, so an idle server's rounds cost the
/// same whatever the devices' settings hold.
struct SummaryDelivery: Service {
    let centers: DeviceCenters
    let clock: @Sendable () -> Date
    let interval: Duration
    let logger: Logger
    let times = SummaryTimes()

    init(centers: DeviceCenters, clock: @escaping @Sendable () -> Date, interval: Duration = .seconds(1), logger: Logger) {
        self.centers = centers
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    func run() async throws {
        await Periodically.run(every: interval) { await deliverDue() }
    }

    /// Delivers every summary due now; a failure is logged, and the next round tries again.
    func deliverDue() async {
        let now = clock()
        do {
            let holding = try await centers.store.holdingDevices(knowingSettingsAsOf: times.known)
            for token in times.due(holding, by: now) {
                try Task.checkCancellation()
                do {
                    // Through the device's session when it is in memory, so that its center and streams show the summary
                    // at once; else in the store alone (a session loaded later reads it with the snapshot): a summary
                    // is no reason to load a device nobody looks at.
                    if let session = await centers.loadedOrLoadingSession(for: token) {
                        try await session.deliverSummaries(dueBy: now)
                    } else if let last = try await centers.store.deliverSummaries(device: token, dueBy: now).last?.number,
                        let session = await centers.loadedOrLoadingSession(for: token)
                    {
                        // Loaded meanwhile, perhaps from a snapshot read before the summary: it catches up now.
                        try await session.catchUp(through: last)
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    logger.error("cannot deliver the summary of device \(token): \(error)")
                }
            }
        } catch is CancellationError {
            // The server is shutting down.
        } catch {
            logger.error("cannot find the devices holding notifications for a summary: \(error)")
        }
    }
}

/// What a summary service worked out for each device holding notifications: the summary times and clock of its
/// settings as of a change, and its next summary from its oldest held notification. Kept for the devices holding
/// notifications now; a device that holds none any more is forgotten.
final class SummaryTimes: Sendable {
    private struct Entry {
        var lastChange: UInt64
        var schedule: SummarySchedule
        var clock: TimeZone
        var oldestHeld: Date
        var nextSummary: Date
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Each device's change as of which its settings are known.
    var known: [String: UInt64] {
        entries.withLock { $0.mapValues(\.lastChange) }
    }

    /// The devices among `holding` whose next summary is due by `date`, in their order; what the store gave replaces
    /// what was kept.
    func due(_ holding: [HoldingDevice], by date: Date) -> [String] {
        entries.withLock { entries in
            var kept: [String: Entry] = [:]
            kept.reserveCapacity(holding.count)
            var due: [String] = []
            for device in holding {
                let entry: Entry
                if let settings = device.settings {
                    entry = Entry(
                        lastChange: device.lastChange, schedule: settings.summary, clock: settings.clock, oldestHeld: device.oldestHeld,
                        nextSummary: device.nextSummary(under: settings))
                } else if var known = entries[device.token] {
                    if known.oldestHeld != device.oldestHeld {
                        known.oldestHeld = device.oldestHeld
                        known.nextSummary = known.schedule.nextDelivery(atOrAfter: device.oldestHeld, in: known.clock)
                    }
                    entry = known
                } else {
                    // Not known after all (no store omits settings it was not told of): read again next round.
                    continue
                }
                kept[device.token] = entry
                if entry.nextSummary <= date { due.append(device.token) }
            }
            entries = kept
            return due
        }
    }
}
