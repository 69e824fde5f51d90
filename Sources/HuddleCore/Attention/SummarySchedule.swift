public import Foundation

/// Settings › Notifications › Scheduled Summary (iOS 15): whether it is on, and the times of day its summaries
/// come, on the device's clock. Which apps go to it is each app's setting (``AppSettings/scheduledSummary``).
public struct SummarySchedule: Sendable, Hashable {
    /// The most times a day (the Settings screen's limit, as reported; Apple's pages do not say).
    public static let maximumTimes = 12
    /// A morning and an evening summary (chosen: docs/summary-and-focus.md).
    public static let defaultTimes = [TimeOfDay(hour: 8, minute: 0)!, TimeOfDay(hour: 18, minute: 0)!]

    /// Off by default, as on a new iPhone.
    public var isEnabled: Bool
    /// One to ``maximumTimes`` distinct times, in order.
    public private(set) var times: [TimeOfDay]

    /// - Throws: ``SettingsError`` for no times, more than ``maximumTimes``, or one given twice.
    public init(isEnabled: Bool = false, times: [TimeOfDay] = SummarySchedule.defaultTimes) throws(SettingsError) {
        guard !times.isEmpty else { throw SettingsError("summary.times: give at least one time") }
        guard times.count <= Self.maximumTimes else {
            throw SettingsError("summary.times: \(times.count) times, more than the \(Self.maximumTimes) a day a summary may have")
        }
        let sorted = times.sorted()
        if let repeated = zip(sorted, sorted.dropFirst()).first(where: { $0.0 == $0.1 }) {
            throw SettingsError("summary.times: \(repeated.0) is given twice")
        }
        self.isEnabled = isEnabled
        self.times = sorted
    }

    /// The first summary at or after `date` (a notification that arrives on the minute of a summary goes in it),
    /// on the clock of `timeZone`. A time that a clock change skips (02:30 on the night clocks spring forward)
    /// comes at the first minute after the gap; one it repeats comes at its first occurrence.
    public func nextDelivery(atOrAfter date: Date, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: date)
        for dayOffset in 0...2 {
            guard let day = calendar.date(byAdding: .day, value: dayOffset, to: today) else { continue }
            let candidates = times.compactMap { time in
                calendar.date(bySettingHour: time.hour, minute: time.minute, second: 0, of: day, matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
            }
            if let next = candidates.filter({ $0 >= date }).min() { return next }
        }
        // Unreachable with at least one time a day; a day later is the honest bound.
        return date.addingTimeInterval(86_400)
    }
}
