import Foundation
import HuddleCore
import Testing

/// Where a notification goes as it arrives, given the person's settings (issue 43): pure functions of the
/// settings, the app's, the level and an injected time. docs/summary-and-focus.md has each rule's source.
struct ArrivalTests {
    static let paris = "Europe/Paris"
    /// 2026-06-10 09:30 in Paris (07:30 UTC).
    static let morning = Date(timeIntervalSince1970: 1_781_076_600)

    static func date(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    static func settings(summary: Bool = false, times: [String] = ["08:00", "18:00"], focus: FocusSettings.Mode = .off, allowed: Set<String> = [], timeSensitiveThroughFocus: Bool = true) throws -> DeviceSettings {
        try DeviceSettings(
            timeZone: paris, summary: SummarySchedule(isEnabled: summary, times: times.map { TimeOfDay($0)! }),
            focus: FocusSettings(name: "Work", mode: focus, allowedApps: allowed, allowsTimeSensitive: timeSensitiveThroughFocus))
    }

    static let inSummary = AppSettings(scheduledSummary: true)
    static let entitled = AppCapabilities(timeSensitive: true, criticalAlerts: true)

    @Test func withAnIPhonesDefaultsEveryLevelArrivesAsItsLevelSays() {
        let settings = DeviceSettings.newDevice
        #expect(settings.lockScreen == .stack && !settings.summary.isEnabled && settings.focus.mode == .off)
        for level in InterruptionLevel.allCases {
            let arrival = settings.arrival(level: level, app: "com.a", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning)
            #expect(arrival.way == (level == .passive ? .quietly : .immediately))
            #expect(arrival.explanation == nil)
        }
    }

    /// Passive and active wait for the next summary; Time Sensitive and critical break through (HIG, "Overrides
    /// scheduled delivery").
    @Test func theSummaryHoldsPassiveAndActiveUntilItsNextTime() throws {
        let settings = try Self.settings(summary: true)
        let until = Self.date("2026-06-10T16:00:00Z")  // 18:00 in Paris (summer time)
        for level in [InterruptionLevel.passive, .active] {
            let arrival = settings.arrival(level: level, app: "com.a", appSettings: Self.inSummary, capabilities: Self.entitled, at: Self.morning)
            #expect(arrival.way == .held(until: until))
            #expect(arrival.explanation == "held for the 18:00 summary")
        }
        for level in [InterruptionLevel.timeSensitive, .critical] {
            #expect(settings.arrival(level: level, app: "com.a", appSettings: Self.inSummary, capabilities: Self.entitled, at: Self.morning).way == .immediately)
        }
        // An app not in the summary is not held.
        #expect(settings.arrival(level: .active, app: "com.a", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning).way == .immediately)
    }

    @Test func aNotificationOnTheMinuteOfASummaryGoesInItAndOneAfterTheLastWaitsForTomorrow() throws {
        let settings = try Self.settings(summary: true)
        let eight = Self.date("2026-06-10T06:00:00Z")
        #expect(settings.arrival(level: .active, app: "a", appSettings: Self.inSummary, capabilities: .init(), at: eight).way == .held(until: eight))
        let late = Self.date("2026-06-10T20:00:00Z")  // 22:00 in Paris
        #expect(settings.arrival(level: .active, app: "a", appSettings: Self.inSummary, capabilities: .init(), at: late).way == .held(until: Self.date("2026-06-11T06:00:00Z")))
    }

    /// On the night clocks spring forward, 02:30 does not exist in Paris: that summary comes at 03:00.
    @Test func aSummaryTimeTheClockSkipsComesAfterTheGap() throws {
        let schedule = try SummarySchedule(isEnabled: true, times: [TimeOfDay("02:30")!])
        let next = schedule.nextDelivery(atOrAfter: Self.date("2026-03-29T00:00:00Z"), in: TimeZone(identifier: Self.paris)!)
        #expect(next == Self.date("2026-03-29T01:00:00Z"))
    }

    @Test func withoutTheCapabilityOrWithTheSwitchOffTimeSensitiveIsHeldLikeAnActiveOne() throws {
        let settings = try Self.settings(summary: true)
        let noCapability = settings.arrival(level: .timeSensitive, app: "a", appSettings: Self.inSummary, capabilities: .init(), at: Self.morning)
        #expect(noCapability.isHeld && noCapability.level == .active)
        #expect(noCapability.explanation?.hasPrefix("Time Sensitive without the Time Sensitive Notifications capability: treated as active") == true)
        var switchedOff = Self.inSummary
        switchedOff.timeSensitive = false
        let off = settings.arrival(level: .timeSensitive, app: "a", appSettings: switchedOff, capabilities: Self.entitled, at: Self.morning)
        #expect(off.isHeld && off.explanation?.hasPrefix("Time Sensitive Notifications are off for the app") == true)
        let critical = settings.arrival(level: .critical, app: "a", appSettings: Self.inSummary, capabilities: .init(timeSensitive: true), at: Self.morning)
        #expect(critical.isHeld && critical.level == .active)
    }

    @Test func aFocusSilencesWhatItDoesNotAllow() throws {
        let settings = try Self.settings(focus: .on, allowed: ["com.friend"])
        let silenced = settings.arrival(level: .active, app: "com.other", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning)
        #expect(silenced.way == .silenced(focus: "Work") && silenced.explanation == "silenced by the Work Focus")
        #expect(settings.arrival(level: .active, app: "com.friend", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning).way == .immediately)
        let urgent = settings.arrival(level: .timeSensitive, app: "com.other", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning)
        #expect(urgent.way == .immediately && urgent.explanation == "broke through the Work Focus: Time Sensitive")
        #expect(settings.arrival(level: .critical, app: "com.other", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning).way == .immediately)
        // A Focus that keeps Time Sensitive out silences it too; critical still breaks through.
        let strict = try Self.settings(focus: .on, timeSensitiveThroughFocus: false)
        #expect(strict.arrival(level: .timeSensitive, app: "x", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning).way == .silenced(focus: "Work"))
        #expect(strict.arrival(level: .critical, app: "x", appSettings: AppSettings(), capabilities: Self.entitled, at: Self.morning).way == .immediately)
    }

    @Test func aScheduledFocusIsOnBetweenItsTimesOvernightToo() throws {
        let night = FocusSettings.Mode.scheduled(from: TimeOfDay("22:00")!, to: TimeOfDay("07:00")!)
        let focus = try FocusSettings(name: "Sleep", mode: night)
        let paris = TimeZone(identifier: Self.paris)!
        #expect(focus.isActive(at: Self.date("2026-06-10T21:30:00Z"), in: paris))  // 23:30
        #expect(focus.isActive(at: Self.date("2026-06-11T04:59:00Z"), in: paris))  // 06:59
        #expect(!focus.isActive(at: Self.date("2026-06-11T05:00:00Z"), in: paris))  // 07:00
        #expect(!focus.isActive(at: Self.morning, in: paris))
    }

    /// A notification held for the summary is held even under a Focus: the summary itself comes quietly.
    @Test func theSummaryComesBeforeTheFocus() throws {
        let settings = try Self.settings(summary: true, focus: .on)
        #expect(settings.arrival(level: .active, app: "a", appSettings: Self.inSummary, capabilities: .init(), at: Self.morning).isHeld)
    }

    @Test func storedSettingsWithAppsThatAreNoIdentifiersStillRead() throws {
        // Written before identifiers were checked: the odd app is left out (no app could match it), the rest is kept.
        let text = #"{"focus": {"name": "Work", "on": true, "allowedApps": ["com.example.chat", "not an app"]}}"#
        let settings = try DeviceSettings.stored(text, device: "d")
        #expect(settings.focus.allowedApps == ["com.example.chat"] && settings.focus.mode == .on)
        var updated = DeviceSettings.newDevice
        let reader = JSONReader(try JSONParser.parse(text))
        #expect(throws: JSONReadError.self) { try updated.update(json: reader) }
    }

    @Test func settingsOutOfBoundsAreRefusedNamingWhatIsWrong() {
        #expect(throws: SettingsError("summary.times: give at least one time")) { try SummarySchedule(times: []) }
        #expect(throws: SettingsError("summary.times: 08:00 is given twice")) { try SummarySchedule(times: [TimeOfDay("08:00")!, TimeOfDay("8:00")!]) }
        #expect(throws: SettingsError.self) { try SummarySchedule(times: (0..<13).map { TimeOfDay(hour: $0, minute: 0)! }) }
        #expect(throws: SettingsError.self) { try DeviceSettings(timeZone: "Mars/Olympus_Mons") }
        #expect(throws: SettingsError.self) { try FocusSettings(name: "") }
        // Allowed apps are app identifiers: the bound on what a device's settings hold.
        #expect(throws: SettingsError.self) { try FocusSettings(allowedApps: [String(repeating: "a", count: 256)]) }
        #expect(throws: SettingsError.self) { try FocusSettings(allowedApps: ["com.example.chat", "two words"]) }
        #expect(throws: SettingsError.self) { try FocusSettings(allowedApps: [""]) }
        #expect((try? FocusSettings(allowedApps: [String(repeating: "a", count: 255), "com.example_app-2"])) != nil)
        #expect(TimeOfDay("24:00") == nil && TimeOfDay("7:5") == nil && TimeOfDay("07:60") == nil && TimeOfDay("٠٧:٠٠") == nil)
    }
}

/// What a summary holds when it comes: by app, by relevance, the featured ones on top.
struct ScheduledSummaryTests {
    static func held(_ app: String, _ id: String, _ score: Double?, _ sequence: UInt64) -> ScheduledSummary.Held {
        ScheduledSummary.Held(app: app, identifier: id, relevanceScore: score, sequence: sequence)
    }

    @Test func eachAppsNotificationsAreOrderedByRelevanceThenNewestAndOnePerAppIsFeatured() throws {
        let summary = try #require(ScheduledSummary(
            held: [
                Self.held("news", "n1", 0.2, 1), Self.held("news", "n2", 0.9, 2), Self.held("news", "n3", 0.9, 5),
                Self.held("mail", "m1", 0.5, 3), Self.held("shop", "s1", nil, 4),
            ],
            deliveredAt: Date(timeIntervalSince1970: 1_781_114_400), timeZone: TimeZone(identifier: "Europe/Paris")!))
        #expect(summary.apps.map(\.app) == ["news", "mail", "shop"])
        // Equal scores: the newest first.
        #expect(summary.apps[0].identifiers == ["n3", "n2", "n1"])
        #expect(summary.featured == [.init(app: "news", identifier: "n3"), .init(app: "mail", identifier: "m1")])
        #expect(summary.count == 5 && summary.period == .evening)
    }

    @Test func oneAppAloneHasItsTwoMostRelevantFeatured() throws {
        let summary = try #require(ScheduledSummary(
            held: [Self.held("news", "a", 0.1, 1), Self.held("news", "b", 0.3, 2), Self.held("news", "c", 0.2, 3)],
            deliveredAt: Date(timeIntervalSince1970: 1_781_071_200), timeZone: TimeZone(identifier: "Europe/Paris")!))
        #expect(summary.featured.map(\.identifier) == ["b", "c"] && summary.period == .morning)
    }

    @Test func nothingHeldIsNoSummary() {
        #expect(ScheduledSummary(held: [], deliveredAt: Date(), timeZone: TimeZone(identifier: "UTC")!) == nil)
    }
}
