/// What the Lock Screen shows of the center's groups in the person's layout (``LockScreenLayout``), from the
/// bottom of the screen up: a count, a stack, or the list.
public struct LockScreenView: Sendable, Hashable {
    /// The most cards a stack draws behind its top one (chosen: docs/summary-and-focus.md).
    public static let stackedEdges = 2

    public var layout: LockScreenLayout
    /// How many notifications the Lock Screen holds: what Count shows ("3 Notifications").
    public var notificationCount: Int
    /// The groups shown as cards, by id, newest first: none for Count, the newest for Stack, all for List.
    public var cards: [String]
    /// For Stack, how many groups are piled behind the top card (``stackedEdges`` of them are drawn).
    public var behind: Int

    /// - Parameter groups: the rendered center's groups, in center order (newest first).
    public init(layout: LockScreenLayout, groups: [RenderedGroup]) {
        self.init(layout: layout, counts: groups.map { (id: $0.id, count: $0.count) })
    }

    /// - Parameter counts: each group's id and how many notifications it holds, in center order (newest first).
    public init(layout: LockScreenLayout, counts: [(id: String, count: Int)]) {
        self.layout = layout
        notificationCount = counts.reduce(0) { $0 + $1.count }
        switch layout {
        case .count:
            cards = []
            behind = 0
        case .stack:
            cards = counts.first.map { [$0.id] } ?? []
            behind = max(0, counts.count - 1)
        case .list:
            cards = counts.map(\.id)
            behind = 0
        }
    }
}
