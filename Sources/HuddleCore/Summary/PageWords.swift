import Foundation
import HuddleLocalization

/// The words of Huddle's own web pages (the Notification Center, its unlock form, the home page and the
/// request inspector) and of `huddle preview`'s header, in every language Huddle's default summaries ship
/// in, so that the language menu changes the whole page and not only the notifications.
///
/// They are kept beside ``HuddleStrings`` because they are the same kind of text: Huddle's own, not an
/// app's. None needs a plural form: a number, where one appears, follows a colon ("Earlier: 3") or
/// names something ("Request 12"); the preview's counts ("3 notifications") are ``HuddleStrings``' plurals. A
/// `%@` stands for a piece of code the page puts in (`huddle send`, `--admin-token`) or such a number, never
/// translated.
public struct PageWords: Sendable, Equatable {
    // MARK: The Notification Center
    public var notificationCenter: String
    public var unlocked: String
    public var locked: String
    public var language: String
    public var clearAll: String
    public var clear: String
    public var showLess: String
    /// The label of a card's × button.
    public var clearThisNotification: String
    /// "Earlier: %@": how many older notifications an open stack holds beyond those it shows.
    public var earlier: String
    /// The live stream's states.
    public var connecting: String
    public var live: String
    public var reconnecting: String
    public var offline: String
    /// "error %@": a call the page made was refused with that HTTP status.
    public var error: String
    public var noOlderNotifications: String
    /// "Send this device its first push with %@:", `%@` being `huddle send`.
    public var firstPush: String
    /// "or with %@:", `%@` being `curl`.
    public var orWith: String
    /// `%@` is `--development`.
    public var developmentHint: String
    /// Before the push commands of a device with no app, which a push could not reach; `%@` is `$SECRET`.
    public var installFirst: String
    /// The heading of what the device did with the pushes that showed nothing (``DeviceEvent``): woke an app,
    /// handed it a call, reloaded its widgets.
    public var backgroundActivity: String
    /// The label of the Live Activities the page shows above the stacks, as the Lock Screen shows them.
    public var liveActivities: String
    /// On a Live Activity whose stale date passed without an update (ActivityKit's `stale`).
    public var notUpdated: String
    /// On a Live Activity that ended and stays on the Lock Screen until it is dismissed.
    public var ended: String
    /// The mark of a `time-sensitive` notification, as iOS labels it.
    public var timeSensitive: String
    /// The mark of a `critical` notification.
    public var critical: String
    /// The mark of a `passive` notification, which arrived without lighting the screen.
    public var deliveredQuietly: String

    // MARK: Unlocking a device's page
    public var deviceSecret: String
    public var wrongSecret: String
    public var open: String
    /// `%@` is `POST /v1/devices`.
    public var secretHint: String

    // MARK: The home page
    public var tagline: String
    public var newDevice: String
    public var name: String
    public var registrationToken: String
    public var wrongRegistrationToken: String
    public var serverFull: String
    public var createDevice: String
    /// Under "Create and open": the example app it installs; `%@` is its bundle identifier.
    public var newDeviceHint: String
    public var devices: String
    public var adminToken: String
    public var showDevices: String
    public var wrongAdminToken: String
    /// `%@` is `--admin-token`: shown to a viewer who has not given the admin token.
    public var adminNeeded: String
    /// `%@` is `--admin-token`: shown when the server has none.
    public var adminOff: String
    public var noDevices: String
    public var signOut: String
    public var openCenter: String
    public var pushToIt: String
    public var openDemo: String
    public var demoHint: String
    public var openAPIDocument: String
    public var metrics: String
    /// The link to the provider request inspector (`/requests`), and that page's title.
    public var providerRequests: String

    // MARK: The request inspector
    /// `%@` is `/3/device/…`.
    public var inspectorIntro: String
    /// The link back to the home page.
    public var home: String
    public var inspectorSignIn: String
    // The table's columns.
    public var time: String
    public var status: String
    public var reason: String
    public var topic: String
    public var device: String
    public var duration: String
    /// `%@` is `/3/device/<token>`.
    public var noRequests: String
    /// "Request %@": the heading of one request, `%@` being its number.
    public var request: String
    // The labels of one request's view.
    public var received: String
    public var connection: String
    public var providerToken: String
    public var keyID: String
    public var teamID: String
    /// When the provider token was issued (a relative time follows).
    public var issued: String
    public var headers: String
    public var payload: String
    /// The answer the provider endpoint gave.
    public var answer: String
    /// The text that explains a refusal (`BadPayload`'s key path, say).
    public var details: String
    public var notification: String
    public var app: String
    public var group: String
    public var identifier: String
    /// The notification a request stored was removed since.
    public var notificationGone: String

    // MARK: `huddle preview`'s header
    /// The state of a locked center, lower case as it follows the languages ("Notification Center · ru · locked").
    public var lockedCenter: String
    public var noNotifications: String

    // MARK: An Android phone's shade, in Android's words rather than iOS's
    /// The shade's heading, and the page's for an Android phone.
    public var notifications: String
    /// What a `private` notification shows on a secure lock screen in place of its contents (English: "Contents
    /// hidden", which ``AndroidShade/hiddenText`` is).
    public var contentsHidden: String
    /// "+%@ more": the children a collapsed group's lines leave out, `%@` being their number.
    public var more: String
    /// The label of a group's button that shows its children, and of the same button that hides them.
    public var expand: String
    public var collapse: String
    /// The device page's link to its web apps and their push subscriptions.
    public var webApps: String

    /// The words for a viewer, and the language they are in: the first of the viewer's languages (or one of
    /// its CLDR parents, `pt-PT` before `pt`) that Huddle has words in, else English.
    public static func forViewer(languages: [String]) -> (words: PageWords, language: String) {
        for preferred in languages.prefix(Self.languagesConsidered) {
            for candidate in LanguageTag(preferred).fallbackChain {
                if let words = table[candidate] { return (words, candidate) }
            }
        }
        return (english, "en")
    }

    /// How many of a viewer's languages are tried: a header or query may list many, and a page needs one.
    static let languagesConsidered = 16

    /// The languages Huddle has page words in, by canonical tag.
    public static var languages: [String] { table.keys.sorted() }

    /// ``translations`` under canonical tags, as ``LanguageTag`` spells the candidates it tries.
    static let table: [String: PageWords] = Dictionary(
        translations.map { (LanguageTag($0.key).canonical, $0.value) }, uniquingKeysWith: { first, _ in first })

    /// Every text, by property name: for checks that every language says everything.
    public var allTexts: [(name: String, text: String)] {
        Mirror(reflecting: self).children.compactMap { child in
            guard let name = child.label, let text = child.value as? String else { return nil }
            return (name, text)
        }
    }

    /// A text with its one `%@` replaced by `argument`.
    public static func fill(_ text: String, with argument: String) -> String {
        text.replacingOccurrences(of: "%@", with: argument)
    }
}
