public import Foundation

/// When a notification reached the center: its date, and a sequence number that breaks ties between
/// notifications delivered in the same instant. Newer stamps compare greater.
///
/// The date is kept to the millisecond, as every store keeps it. A center that applies a change as its store
/// committed it then orders notifications exactly as one loaded from the store does: two pushes dated within
/// one millisecond, committed in the other order, tie here too, and their sequence decides.
public struct DeliveryStamp: Sendable, Hashable, Comparable {
    public private(set) var date: Date
    public var sequence: UInt64

    public init(date: Date, sequence: UInt64) {
        self.date = Date(milliseconds: date.milliseconds)
        self.sequence = sequence
    }

    public static func < (lhs: DeliveryStamp, rhs: DeliveryStamp) -> Bool {
        lhs.date != rhs.date ? lhs.date < rhs.date : lhs.sequence < rhs.sequence
    }
}

/// What the person's settings did to a notification as it arrived (``Arrival``), as a store keeps it: decided once,
/// in the transaction that stored the notification, so that every server shows the same.
public enum ArrivalMark: Sendable, Hashable {
    /// In the center as it came (lit the screen, or quietly: the level says which).
    case shown
    /// Waiting for the scheduled summary; in the center only once that comes.
    case held
    /// In the center, quietly: the Focus of that name silenced it.
    case silenced(focus: String)
}

/// A notification in a center (`UNNotification`): the request, the app it came from, and its stamp.
///
/// Immutable, and held by reference: a center copies each notification into its table, its group events
/// and its results, and a copy of a reference costs one retain where a copy of the ~300-byte content
/// would retain every one of its strings.
public struct DeliveredNotification: Sendable, Hashable {
    private final class Storage: Sendable {
        let app: String
        let request: NotificationRequest
        let stamp: DeliveryStamp
        let mark: ArrivalMark

        init(app: String, request: NotificationRequest, stamp: DeliveryStamp, mark: ArrivalMark) {
            self.app = app
            self.request = request
            self.stamp = stamp
            self.mark = mark
        }
    }

    private let storage: Storage

    public init(app: String, request: NotificationRequest, stamp: DeliveryStamp, mark: ArrivalMark = .shown) {
        storage = Storage(app: app, request: request, stamp: stamp, mark: mark)
    }

    public var app: String { storage.app }
    public var request: NotificationRequest { storage.request }
    public var stamp: DeliveryStamp { storage.stamp }
    /// What the device's settings did to it as it arrived.
    public var mark: ArrivalMark { storage.mark }
    public var identifier: String { storage.request.identifier }
    public var content: NotificationContent { storage.request.content }
    public var date: Date { storage.stamp.date }

    public static func == (lhs: DeliveredNotification, rhs: DeliveredNotification) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.stamp == rhs.stamp && lhs.app == rhs.app && lhs.request == rhs.request && lhs.mark == rhs.mark)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(app)
        hasher.combine(stamp)
        hasher.combine(request)
    }
}
