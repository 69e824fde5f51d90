public import Foundation

/// A scheduled summary as the device presents it when its time comes: the notifications held for it, by app,
/// each app's ordered by relevance score, and the ones featured on top. Apple says the score "determines if the
/// notification is the summary's featured notification" and sorts an app's notifications; how many are featured,
/// how apps are ordered and how ties fall it does not say (the choices: docs/summary-and-focus.md).
public struct ScheduledSummary: Sendable, Hashable {
    /// How many notifications a summary features (chosen: the figure reported for iOS 15).
    public static let featuredCount = 2

    /// A notification held for a summary.
    public struct Held: Sendable, Hashable {
        public var app: String
        public var identifier: String
        /// `nil` reads as 0, as `relevanceScore` does on the device.
        public var relevanceScore: Double?
        /// Its delivery's number on the device: the later, the higher.
        public var sequence: UInt64

        public init(app: String, identifier: String, relevanceScore: Double?, sequence: UInt64) {
            self.app = app
            self.identifier = identifier
            self.relevanceScore = relevanceScore
            self.sequence = sequence
        }

        /// The summary's order: highest score first, then the newest, then by identifier (total, so that a summary
        /// reads the same every time).
        static func precedes(_ lhs: Held, _ rhs: Held) -> Bool {
            let (left, right) = (lhs.relevanceScore ?? 0, rhs.relevanceScore ?? 0)
            if left != right { return left > right }
            if lhs.sequence != rhs.sequence { return lhs.sequence > rhs.sequence }
            return lhs.identifier < rhs.identifier
        }
    }

    /// One app's part of the summary.
    public struct AppPart: Sendable, Hashable {
        public var app: String
        /// In the summary's order.
        public var identifiers: [String]

        public init(app: String, identifiers: [String]) {
            self.app = app
            self.identifiers = identifiers
        }
    }

    /// The time of day a summary is named after, on the device's clock: morning before 12:00, afternoon until
    /// 17:00, evening after.
    public enum Period: String, Sendable, Hashable, CaseIterable {
        case morning, afternoon, evening
    }

    /// When it came.
    public var deliveredAt: Date
    public var period: Period
    /// The featured notifications, the most relevant first: at most one per app while other apps have
    /// notifications in the summary.
    public var featured: [Featured]
    /// The apps, the one with the most relevant notification first.
    public var apps: [AppPart]
    /// How many notifications it holds.
    public var count: Int

    /// A notification featured on top of the summary.
    public struct Featured: Sendable, Hashable {
        public var app: String
        public var identifier: String

        public init(app: String, identifier: String) {
            self.app = app
            self.identifier = identifier
        }
    }

    /// A summary as it was made (read back from a store).
    public init(deliveredAt: Date, period: Period, featured: [Featured], apps: [AppPart], count: Int) {
        self.deliveredAt = deliveredAt
        self.period = period
        self.featured = featured
        self.apps = apps
        self.count = count
    }

    /// The summary of `held` delivered at `date`; `nil` when nothing was held (no summary shows then).
    public init?(held: [Held], deliveredAt date: Date, timeZone: TimeZone) {
        guard !held.isEmpty else { return nil }
        let ordered = held.sorted(by: Held.precedes)
        var apps: [AppPart] = []
        var position: [String: Int] = [:]
        for notification in ordered {
            if let index = position[notification.app] {
                apps[index].identifiers.append(notification.identifier)
            } else {
                position[notification.app] = apps.count
                apps.append(AppPart(app: notification.app, identifiers: [notification.identifier]))
            }
        }
        // One per app first (the first of each app is its most relevant), then the next most relevant.
        var featured = apps.prefix(Self.featuredCount).map { Featured(app: $0.app, identifier: $0.identifiers[0]) }
        for notification in ordered where featured.count < Self.featuredCount {
            let candidate = Featured(app: notification.app, identifier: notification.identifier)
            if !featured.contains(candidate) { featured.append(candidate) }
        }
        self.featured = featured
        self.apps = apps
        count = held.count
        deliveredAt = date
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let hour = calendar.component(.hour, from: date)
        period = hour < 12 ? .morning : hour < 17 ? .afternoon : .evening
    }
}
