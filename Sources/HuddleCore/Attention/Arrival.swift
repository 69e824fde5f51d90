public import Foundation

/// What the device does with a notification as it arrives, given the person's settings: a pure function of the
/// device's settings, the app's, the notification's interruption level and the time (``DeviceSettings/arrival``).
public struct Arrival: Sendable, Hashable {
    public enum Way: Sendable, Hashable {
        /// Shown at once: it lights the screen and may sound.
        case immediately
        /// Into the list at once, without lighting the screen or a sound: a passive notification.
        case quietly
        /// Into the list at once, quietly: the Focus of that name silences it.
        case silenced(focus: String)
        /// Held for the scheduled summary that comes at `until`, and shown only then.
        case held(until: Date)
    }

    public var way: Way
    /// The level the device treats the notification as: a Time Sensitive one whose app lacks the capability or
    /// whose Time Sensitive switch is off, or a critical one without the entitlement, is an active one.
    public var level: InterruptionLevel
    /// What the device did, as its events say it: "held for the 08:00 summary", "silenced by the Work Focus",
    /// "broke through the Work Focus: Time Sensitive". `nil` for a notification shown as it would be anyway.
    public var explanation: String?

    public var isHeld: Bool {
        if case .held = way { true } else { false }
    }
}

extension DeviceSettings {
    /// Where a notification of `app` goes when it arrives at `date`:
    /// 1. its level as the device treats it (``Arrival/level``);
    /// 2. held for the next summary when the summary is on, the app is in it, and the level is passive or active
    ///    (Time Sensitive and critical break through: Apple's Human Interface Guidelines, "Overrides scheduled
    ///    delivery");
    /// 3. else, under a Focus that is on: shown when critical, when the Focus allows the app, or when it is Time
    ///    Sensitive and the Focus lets Time Sensitive notifications through; silenced otherwise;
    /// 4. else quietly when passive, at once otherwise.
    public func arrival(
        level declared: InterruptionLevel, app: String, appSettings: AppSettings, capabilities: AppCapabilities, at date: Date
    ) -> Arrival {
        let level = Self.effectiveLevel(declared, appSettings: appSettings, capabilities: capabilities)
        var downgraded: String?
        if level != declared {
            downgraded = switch declared {
            case .critical: "critical without the Critical Alerts entitlement: treated as active"
            case .timeSensitive where !capabilities.timeSensitive: "Time Sensitive without the Time Sensitive Notifications capability: treated as active"
            default: "Time Sensitive Notifications are off for the app: treated as active"
            }
        }
        func with(_ text: String?) -> String? {
            [downgraded, text].compactMap { $0 }.joined(separator: "; ").nilIfEmpty
        }
        let clock = self.clock
        let inSummary = summary.isEnabled && appSettings.scheduledSummary
        if inSummary, level == .passive || level == .active {
            let until = summary.nextDelivery(atOrAfter: date, in: clock)
            return Arrival(way: .held(until: until), level: level, explanation: with("held for the \(Self.timeText(until, in: clock)) summary"))
        }
        if inSummary {
            let name = level == .critical ? "critical" : "Time Sensitive"
            downgraded = [downgraded, "broke through the scheduled summary: \(name)"].compactMap { $0 }.joined(separator: "; ")
        }
        if focus.isActive(at: date, in: clock) {
            if level == .critical {
                return Arrival(way: .immediately, level: level, explanation: with("broke through the \(focus.name) Focus: critical"))
            }
            if focus.allowedApps.contains(app) {
                return Arrival(
                    way: level == .passive ? .quietly : .immediately, level: level,
                    explanation: with("allowed by the \(focus.name) Focus"))
            }
            if level == .timeSensitive, focus.allowsTimeSensitive {
                return Arrival(way: .immediately, level: level, explanation: with("broke through the \(focus.name) Focus: Time Sensitive"))
            }
            return Arrival(way: .silenced(focus: focus.name), level: level, explanation: with("silenced by the \(focus.name) Focus"))
        }
        return Arrival(way: level == .passive ? .quietly : .immediately, level: level, explanation: with(nil))
    }

    /// The level the device treats a notification as, given what its app may do and the person's switch.
    public static func effectiveLevel(_ level: InterruptionLevel, appSettings: AppSettings, capabilities: AppCapabilities) -> InterruptionLevel {
        switch level {
        case .critical: capabilities.criticalAlerts ? .critical : .active
        case .timeSensitive: capabilities.timeSensitive && appSettings.timeSensitive ? .timeSensitive : .active
        case .passive, .active: level
        }
    }

    /// `08:00`: a time as the device's clock shows it.
    static func timeText(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return TimeOfDay(hour: parts.hour ?? 0, minute: parts.minute ?? 0)?.description ?? "00:00"
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
