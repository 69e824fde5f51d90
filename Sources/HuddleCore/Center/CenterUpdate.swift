/// What a group's watcher hears: a notification content extension on iOS (behavior.md section 8) first
/// sees the group's leading notification, then every later delivery to the group and every removal from
/// it, in the order they happen.
public enum GroupEvent: Sendable, Hashable {
    /// The group's leading notification when the watcher started.
    case leading(DeliveredNotification)
    /// A notification delivered to the group (it now leads it, unless its date is older).
    case delivered(DeliveredNotification)
    /// A notification removed from the group (dismissed, cleared, replaced or regrouped away).
    case removed(DeliveredNotification)
}

/// What applying one committed change did to a center: enough for a live layer to tell every watcher
/// without comparing centers.
public struct CenterUpdate: Sendable {
    /// The change's number.
    public var number: UInt64
    /// The groups that changed: render them again, or drop them if they no longer exist.
    public var groups: Set<GroupID> = []
    /// Identifiers of the notifications delivered.
    public var delivered: [String] = []
    /// Identifiers of the notifications removed.
    public var removed: [String] = []
    /// The change may alter every group's rendering (an app's settings, categories or strings changed, or the
    /// whole center was read again): render everything.
    public var changesEverything = false
    /// What the person's settings hold beside the center changed (a notification held or silenced, a summary's
    /// state): the device's part of a rendering, and the documents that carry it, are stale.
    public var changesDevice = false
    /// Per group, in order, what its watchers hear.
    public var groupEvents: [(group: GroupID, event: GroupEvent)] = []
    /// A committed app that today's rules refuse, left out of the center (see ``Center/loading(_:)``).
    public var refusal: String?

    public init(number: UInt64) {
        self.number = number
    }
}

