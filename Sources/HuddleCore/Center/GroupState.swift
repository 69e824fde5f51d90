/// One stack of a center, and the running totals its summary is made from.
///
/// Every delivery and removal updates the totals, so showing a group never walks its notifications:
/// the summary needs only the totals per category and the leading notification.
struct GroupState: Sendable {
    struct Member: Sendable, Hashable {
        var stamp: DeliveryStamp
        /// Where the notification sits in its app's ``NotificationTable``.
        var slot: Int
    }

    /// Oldest first, so the usual delivery (the newest) appends, and a trim (the oldest) is O(1).
    private(set) var members = OldestFirst<Member>()
    /// Totals by category identifier ("" for none). Keyed by identifier rather than by resolved format,
    /// so that registering new categories or changing the viewer's language needs no recount.
    private(set) var tallies = SmallStringMap<CategoryTally>()

    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }
    /// The leading notification's member: the newest.
    var leading: Member? { members.last }

    /// Adds a notification.
    /// - Complexity: amortized O(1) for the newest notification, O(n) otherwise.
    mutating func insert(_ notification: DeliveredNotification, slot: Int) {
        members.insertSorted(Member(stamp: notification.stamp, slot: slot), by: \.stamp)
        tallies.modify(notification.content.categoryIdentifier, default: CategoryTally.init) { $0.add(notification) }
    }

    /// Removes a notification that is in this group.
    /// - Complexity: O(log n) to find it, plus the elements after it moved down.
    mutating func remove(_ notification: DeliveredNotification) {
        guard let index = members.indexOfSorted(notification.stamp, by: \.stamp) else { return }
        members.remove(at: index)
        let category = notification.content.categoryIdentifier
        let isEmpty = tallies.modifyExisting(category) { tally -> Bool in
            tally.remove(notification)
            return tally.stamps.isEmpty
        }
        if isEmpty == true { tallies.remove(category) }
    }
}

/// What one category contributes to a group: its notifications' stamps, their summed counts and their
/// summary arguments.
struct CategoryTally: Sendable {
    /// Stamps of this category's notifications, oldest first.
    private(set) var stamps = OldestFirst<DeliveryStamp>()
    /// The sum of their effective summary argument counts. Exact (it must come back to 0 as notifications
    /// leave): each count is capped at ``NotificationContent/maximumSummaryArgumentCount``, so no number of
    /// notifications a machine can hold overflows it.
    private(set) var countSum = 0
    /// Each non-empty summary argument with the stamps of the notifications carrying it, oldest first.
    private(set) var arguments = SmallStringMap<OldestFirst<DeliveryStamp>>()

    mutating func add(_ notification: DeliveredNotification) {
        stamps.insertSorted(notification.stamp, by: \.self)
        countSum += notification.content.effectiveSummaryArgumentCount
        let argument = notification.content.summaryArgument
        if !argument.isEmpty {
            arguments.modify(argument, default: { [] }) { $0.insertSorted(notification.stamp, by: \.self) }
        }
    }

    mutating func remove(_ notification: DeliveredNotification) {
        guard let index = stamps.indexOfSorted(notification.stamp, by: \.self) else { return }
        stamps.remove(at: index)
        countSum -= notification.content.effectiveSummaryArgumentCount
        let argument = notification.content.summaryArgument
        guard !argument.isEmpty else { return }
        let isEmpty = arguments.modifyExisting(argument) { stamps -> Bool in
            if let position = stamps.indexOfSorted(notification.stamp, by: \.self) { stamps.remove(at: position) }
            return stamps.isEmpty
        }
        if isEmpty == true { arguments.remove(argument) }
    }
}

/// Elements in ascending order, oldest first: a group's members and its categories' stamps. Appending the
/// newest and removing the oldest (what a trim past `--max-notifications-per-app` does, on every push once an
/// app is full) are O(1) amortized; an array moved every element down on each removal of its first. A removal
/// near the front moves the elements before it, one near the back those after it: a trim removes the app's first
/// delivered, which is not always a group's first by date (two pushes committed in the other order than they were
/// dated), and moving the ten thousand after it was 3% of a push into a full app (`perf record`).
struct OldestFirst<Element: Sendable>: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    private var storage: [Element] = []
    /// Where the elements begin in `storage`: the ones before were removed, and go at the next compaction.
    private var start = 0

    init() {}

    init(arrayLiteral elements: Element...) {
        storage = elements
    }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - start }
    subscript(position: Int) -> Element { storage[start + position] }

    /// Inserts keeping the elements sorted by `key` (ascending); appends when the element is the largest.
    mutating func insertSorted<Key: Comparable>(_ element: Element, by key: (Element) -> Key) {
        let elementKey = key(element)
        if let last, key(last) > elementKey {
            storage.insert(element, at: start + insertionIndex(of: elementKey, by: key))
        } else {
            storage.append(element)
        }
    }

    mutating func remove(at position: Int) {
        guard position * 2 < count else {
            storage.remove(at: start + position)
            return
        }
        // Nearer the front: the elements before it move up one place, and the first place is let go.
        var index = start + position
        while index > start {
            storage[index] = storage[index - 1]
            index -= 1
        }
        start += 1
        // The removed ones go once they are half the storage: each element is moved once per removal on
        // average, and the storage holds at most twice the elements.
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 16, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }
}

extension RandomAccessCollection where Index == Int {
    /// The index of the element whose key is `target`, by binary search in a collection sorted by `key`.
    func indexOfSorted<Key: Comparable>(_ target: Key, by key: (Element) -> Key) -> Int? {
        let index = insertionIndex(of: target, by: key)
        return index < endIndex && key(self[index]) == target ? index : nil
    }

    /// The first index whose key is not less than `target`.
    func insertionIndex<Key: Comparable>(of target: Key, by key: (Element) -> Key) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if key(self[middle]) < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension Int {
    /// The sum, or the nearest representable value when it would overflow: for totals that are shown,
    /// where a clamped number beats a crash.
    func addingSaturating(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
