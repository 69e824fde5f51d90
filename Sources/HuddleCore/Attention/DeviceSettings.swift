public import Foundation

/// What the person chose for the whole device that decides when a notification shows and how: the device's time
/// zone, the scheduled summary, a Focus and the Lock Screen's layout. Each app's own switches are in
/// ``AppSettings``. The defaults are an iPhone's: no summary, no Focus, Stack.
public struct DeviceSettings: Sendable, Hashable {
    /// An IANA time zone identifier (`Europe/Paris`): the clock the summary times and the Focus schedule read.
    public private(set) var timeZone: String
    public var summary: SummarySchedule
    public var focus: FocusSettings
    public var lockScreen: LockScreenLayout

    /// - Throws: ``SettingsError`` for a time zone the system does not know.
    public init(
        timeZone: String = "UTC", summary: SummarySchedule? = nil, focus: FocusSettings? = nil, lockScreen: LockScreenLayout = .stack
    ) throws(SettingsError) {
        guard timeZone.utf8.count <= 64, TimeZone(identifier: timeZone) != nil else {
            throw SettingsError("timeZone: \"\(timeZone.prefix(64))\" is not a time zone (expected an IANA name such as Europe/Paris)")
        }
        self.timeZone = timeZone
        // Both defaults are valid: building them cannot fail.
        if let summary { self.summary = summary } else { self.summary = try SummarySchedule() }
        if let focus { self.focus = focus } else { self.focus = try FocusSettings() }
        self.lockScreen = lockScreen
    }

    /// The settings of a new device, as an iPhone leaves the box: no summary, no Focus, the Stack layout. An Android
    /// phone keeps them: none of them is an Android setting.
    public static let newDevice: DeviceSettings = try! DeviceSettings()

    /// The device's clock.
    public var clock: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)! }
}
