/// An app's delivered notifications: kept in one array of slots, with an index from identifier to slot.
///
/// A dictionary of the notifications themselves would move every ~300-byte notification each time it
/// grows; here only the small index grows, the array appends, and freed slots are reused. Groups refer
/// to their notifications by slot, so rendering reads them without hashing an identifier. Identifiers are
/// compared by their Unicode scalars (``ExactString``, behavior.md section 7).
struct NotificationTable: Sendable {
    private var slots: [ExactString: Int] = [:]
    private var storage: [DeliveredNotification?] = []
    private var freeSlots: [Int] = []

    var count: Int { slots.count }
    var identifiers: [String] { slots.keys.map(\.string) }

    subscript(identifier: String) -> DeliveredNotification? {
        slots[ExactString(identifier)].flatMap { storage[$0] }
    }

    /// The notification in a slot a group member names; the slot must be occupied.
    subscript(slot slot: Int) -> DeliveredNotification {
        storage[slot]!
    }

    /// Every notification, in no particular order.
    var all: [DeliveredNotification] { storage.compactMap { $0 } }

    /// Every notification with its slot, in no particular order.
    var occupied: [(slot: Int, notification: DeliveredNotification)] {
        storage.enumerated().compactMap { slot, notification in notification.map { (slot, $0) } }
    }

    /// Stores a notification under its identifier, replacing one with the same identifier.
    /// - Returns: the slot it now occupies, and the notification it replaced.
    /// - Complexity: amortized O(1); one hash of the identifier.
    mutating func upsert(_ notification: DeliveredNotification) -> (slot: Int, replaced: DeliveredNotification?) {
        var replaced: DeliveredNotification?
        let slot = Self.claim(&slots[ExactString(notification.identifier), default: -1], storage: &storage, freeSlots: &freeSlots, replaced: &replaced)
        storage[slot] = notification
        return (slot, replaced)
    }

    /// Removes a notification by identifier.
    mutating func remove(identifier: String) -> DeliveredNotification? {
        guard let slot = slots.removeValue(forKey: ExactString(identifier)), let notification = storage[slot] else { return nil }
        storage[slot] = nil
        freeSlots.append(slot)
        return notification
    }

    /// Gives a new identifier a slot (reusing a free one), or reports what an existing identifier holds.
    private static func claim(
        _ slot: inout Int, storage: inout [DeliveredNotification?], freeSlots: inout [Int], replaced: inout DeliveredNotification?
    ) -> Int {
        if slot >= 0 {
            replaced = storage[slot]
            return slot
        }
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = storage.count
            storage.append(nil)
        }
        return slot
    }
}
