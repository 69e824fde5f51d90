public import Foundation

/// When a notification reached the center: its date, and a sequence number that breaks ties between
/// notifications delivered in the same instant. Newer stamps compare greater.
public struct DeliveryStamp: Sendable, Hashable, Comparable {
    public var date: Date
    public var sequence: UInt64

    public init(date: Date, sequence: UInt64) {
        self.date = date
        self.sequence = sequence
    }

    public static func < (lhs: DeliveryStamp, rhs: DeliveryStamp) -> Bool {
        lhs.date != rhs.date ? lhs.date < rhs.date : lhs.sequence < rhs.sequence
    }
}

/// A notification in a center (`UNNotification`): the request, the app it came from, and its stamp.
public struct DeliveredNotification: Sendable, Hashable {
    public var app: String
    public var request: NotificationRequest
    public var stamp: DeliveryStamp

    public init(app: String, request: NotificationRequest, stamp: DeliveryStamp) {
        self.app = app
        self.request = request
        self.stamp = stamp
    }

    public var identifier: String { request.identifier }
    public var content: NotificationContent { request.content }
    public var date: Date { stamp.date }
}
