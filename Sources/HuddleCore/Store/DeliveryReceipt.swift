public import Foundation

/// What became of one message a sender was answered for before its delivery was decided (an Expo push ticket's
/// receipt): kept by the store, found by any server sharing it, for as long as the sender keeps its receipts.
public struct DeliveryReceipt: Sendable, Hashable {
    /// The id the sender answered (the ticket's `id`).
    public var id: String
    public var createdAt: Date
    /// The sender's code for why the message did not arrive; `nil` when it did.
    public var error: String?
    public var message: String?

    public init(id: String, createdAt: Date, error: String? = nil, message: String? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.error = error
        self.message = message
    }

    /// The longest id a store keeps.
    public static let longestID = 64
}
