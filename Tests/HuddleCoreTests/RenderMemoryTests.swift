import Foundation
@testable import HuddleCore
import HuddleLocalization
import Testing

/// Renderings of changed groups that keep what earlier renderings for the same viewer resolved: the same
/// groups as renderings from scratch, and a format's problem reported once.
@Suite struct RenderMemoryTests {
    static let start = Date(timeIntervalSince1970: 1_528_304_400)

    /// A center with an app whose summary format is plain and one whose format is localized, in English
    /// (a plural) and German (a format that turns invalid after localization).
    static func center() throws -> Center {
        var center = Center()
        try center.register(AppRegistration(bundleIdentifier: "com.example.plain"))
        try center.setCategories([NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%u more messages from %@"))], for: "com.example.plain")
        let bundle = LocalizationBundle(developmentLanguage: "en", tables: [
            "en": ["SUMMARY": .plural(PluralFormat(format: "%#@n@ from %@", variables: [
                "n": PluralVariable(valueType: "u", forms: [.one: "%u more photo", .other: "%u more photos"]),
            ]))],
            "de": ["SUMMARY": .text("noch %s von %@")],
        ])
        try center.register(AppRegistration(bundleIdentifier: "com.example.photos", localizations: bundle))
        try center.setCategories(
            [NotificationCategory(identifier: "msg", categorySummaryFormat: .localized(key: "SUMMARY", arguments: []))], for: "com.example.photos")
        return center
    }

    static func deliver(_ index: Int, to center: inout Center) throws -> GroupID {
        var content = NotificationContent(title: .plain("Title"), body: .plain("body \(index)"))
        content.categoryIdentifier = "msg"
        content.threadIdentifier = "thread-\(index % 3)"
        content.summaryArgument = "Person \(index % 5)"
        let app = index.isMultiple(of: 2) ? "com.example.plain" : "com.example.photos"
        let delivery = try center.deliver(
            NotificationRequest(identifier: "n\(index)", content: content), app: app, at: start.addingTimeInterval(Double(index)))
        return try #require(delivery?.group)
    }

    @Test(arguments: [["en"], ["de"], ["ru", "en"]])
    func eachChangedGroupRendersAsItWouldFromScratch(languages: [String]) throws {
        var center = try Self.center()
        let viewer = Viewer(languages: languages)
        // A small bound, so that the memory forgets and starts again many times on the way.
        var memory = RenderMemory(viewer: viewer, rememberingAtMost: 16)
        for index in 0..<300 {
            let group = try Self.deliver(index, to: &center)
            let remembered = center.render(groups: [group], options: RenderOptions(notificationLimit: 2), memory: &memory).groups
            let fresh = center.render(groups: [group], for: viewer, options: RenderOptions(notificationLimit: 2)).groups
            #expect(remembered == fresh, "delivery \(index)")
            #expect(remembered[group]?.summary != nil || remembered[group]?.count == 1)
        }
    }

    @Test func aFormatsProblemIsReportedByTheRenderingThatFirstMeetsIt() throws {
        var center = try Self.center()
        var memory = RenderMemory(viewer: Viewer(languages: ["de"]))
        // Two photos in one thread: a group with a summary.
        _ = try Self.deliver(1, to: &center)
        let group = try Self.deliver(7, to: &center)
        let first = center.render(groups: [group], memory: &memory)
        #expect(first.diagnostics.count == 1)
        #expect(first.diagnostics.first?.contains(#"format "SUMMARY" for de is invalid after localization"#) == true)
        #expect(center.render(groups: [group], memory: &memory).diagnostics.isEmpty)
        #expect(center.render(groups: [group], for: Viewer(languages: ["de"])).diagnostics.count == 1)
    }
}
