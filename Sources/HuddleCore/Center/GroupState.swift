/// One stack of a center, and the running totals its summary is made from.
///
/// Every delivery and removal updates the totals, so showing a group never walks its notifications:
/// the summary needs only the totals per category and the leading notification.
struct GroupState: Sendable {
    struct Member: Sendable, Hashable {
        var stamp: DeliveryStamp
        var identifier: String
    }

    /// Oldest first, so the usual delivery (the newest) appends.
    private(set) var members: [Member] = []
    /// Totals by category identifier ("" for none). Keyed by identifier rather than by resolved format,
    /// so that registering new categories or changing the viewer's language needs no recount.
    private(set) var tallies: [String: CategoryTally] = [:]

    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }
    /// The leading notification's member: the newest.
    var leading: Member? { members.last }

    /// Adds a notification.
    /// - Complexity: amortized O(1) for the newest notification, O(n) otherwise.
    mutating func insert(_ notification: DeliveredNotification) {
        let member = Member(stamp: notification.stamp, identifier: notification.identifier)
        members.insertSorted(member, by: \.stamp)
        tallies[notification.content.categoryIdentifier, default: CategoryTally()].add(notification)
    }

    /// Removes a notification that is in this group.
    /// - Complexity: O(log n) to find it, plus the elements after it moved down.
    mutating func remove(_ notification: DeliveredNotification) {
        guard let index = members.indexOfSorted(notification.stamp, by: \.stamp) else { return }
        members.remove(at: index)
        let category = notification.content.categoryIdentifier
        tallies[category]?.remove(notification)
        if tallies[category]?.stamps.isEmpty == true { tallies[category] = nil }
    }

    /// Identifiers newest first.
    var identifiersNewestFirst: [String] { members.reversed().map(\.identifier) }
}

/// What one category contributes to a group: its notifications' stamps, their summed counts and their
/// summary arguments.
struct CategoryTally: Sendable {
    /// Stamps of this category's notifications, oldest first.
    private(set) var stamps: [DeliveryStamp] = []
    /// The sum of their effective summary argument counts.
    private(set) var countSum = 0
    /// Each non-empty summary argument with the stamps of the notifications carrying it, oldest first.
    private(set) var arguments: [String: [DeliveryStamp]] = [:]

    mutating func add(_ notification: DeliveredNotification) {
        stamps.insertSorted(notification.stamp, by: \.self)
        countSum += notification.content.effectiveSummaryArgumentCount
        let argument = notification.content.summaryArgument
        if !argument.isEmpty {
            arguments[argument, default: []].insertSorted(notification.stamp, by: \.self)
        }
    }

    mutating func remove(_ notification: DeliveredNotification) {
        guard let index = stamps.indexOfSorted(notification.stamp, by: \.self) else { return }
        stamps.remove(at: index)
        countSum -= notification.content.effectiveSummaryArgumentCount
        let argument = notification.content.summaryArgument
        if !argument.isEmpty, let position = arguments[argument]?.indexOfSorted(notification.stamp, by: \.self) {
            arguments[argument]?.remove(at: position)
            if arguments[argument]?.isEmpty == true { arguments[argument] = nil }
        }
    }
}

extension Array {
    /// Inserts keeping the array sorted by `key` (ascending); appends when the element is the largest.
    mutating func insertSorted<Key: Comparable>(_ element: Element, by key: (Element) -> Key) {
        let elementKey = key(element)
        if let last, key(last) > elementKey {
            insert(element, at: insertionIndex(of: elementKey, by: key))
        } else {
            append(element)
        }
    }

    /// The index of the element whose key is `target`, by binary search in an array sorted by `key`.
    func indexOfSorted<Key: Comparable>(_ target: Key, by key: (Element) -> Key) -> Int? {
        let index = insertionIndex(of: target, by: key)
        return index < count && key(self[index]) == target ? index : nil
    }

    /// The first index whose key is not less than `target`.
    func insertionIndex<Key: Comparable>(of target: Key, by key: (Element) -> Key) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if key(self[middle]) < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
