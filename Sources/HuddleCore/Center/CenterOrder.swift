/// The order of a center's groups: by leading notification, newest first.
///
/// Kept as entries (leading stamp, group) sorted by stamp. An entry goes stale when its group gets a new
/// leading notification or disappears; stale entries are skipped when reading and dropped in bulk once
/// they outnumber the live ones. A delivery, the common change, then costs one append, and reading the
/// order is linear in the number of groups.
struct CenterOrder: Sendable {
    struct Entry: Sendable {
        var stamp: DeliveryStamp
        var group: GroupID
    }

    /// Oldest first; may hold stale entries, never two entries with one stamp.
    private(set) var entries: [Entry] = []

    /// Records that `group` is now led by the notification stamped `stamp`.
    /// - Complexity: O(1) when `stamp` is the newest in the center, O(n) otherwise.
    mutating func recordLeading(_ stamp: DeliveryStamp, of group: GroupID) {
        if let last = entries.last, last.stamp >= stamp {
            let index = entries.insertionIndex(of: stamp, by: \.stamp)
            if index < entries.count, entries[index].stamp == stamp {
                entries[index].group = group
            } else {
                entries.insert(Entry(stamp: stamp, group: group), at: index)
            }
        } else {
            entries.append(Entry(stamp: stamp, group: group))
        }
    }

    /// Whether stale entries outnumber the live groups enough to be worth dropping.
    func needsCompaction(liveGroupCount: Int) -> Bool {
        entries.count > 2 * liveGroupCount + 64
    }

    /// Drops stale entries, keeping the walk linear in the number of groups.
    /// - Parameter isLive: whether an entry still names its group's leading notification.
    mutating func compact(isLive: (Entry) -> Bool) {
        entries.removeAll { !isLive($0) }
    }

    /// Starts over from the given leading stamps (after regrouping an app).
    mutating func rebuild(from leaders: [Entry]) {
        entries = leaders.sorted { $0.stamp < $1.stamp }
    }
}
