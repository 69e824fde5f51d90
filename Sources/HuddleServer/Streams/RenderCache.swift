import HuddleCore
import Logging
import NIOCore

/// A device's center rendered for the views that look at it, each group kept as encoded text (JSON or
/// HTML), so that reading an unchanged center is a lookup plus writing bytes, and a change renders again
/// just the groups it touched.
///
/// Owned by the device's session, which changes the center and tells the cache in the same step; rendering
/// happens there, under no lock.
struct RenderCache {
    /// One view's rendering.
    private struct Entry {
        /// Each group's encoded text, for the groups rendered.
        var fragments: [GroupID: String] = [:]
        /// Groups changed since they were rendered (possibly gone).
        var stale: Set<GroupID> = []
        /// Whether every group was rendered once (until then ``fragments`` is not the whole center).
        var isComplete = false
        /// The groups in center order; `nil` after a change.
        var order: [GroupID]?
        /// The whole document, built from the fragments; `nil` after a change. Kept as bytes: a read writes
        /// this buffer itself.
        var document: ByteBuffer?
        /// What the view's renderings resolved (its summary formats), kept until the center changes
        /// everything (an app saved or deleted: its formats and strings may differ).
        var memory: RenderMemory?
        var lastUse: UInt64 = 0
    }

    /// Views kept beyond those that live streams need; the least recently used go first.
    static let maximumUnwatchedViews = 8

    private var entries: [CenterView: Entry] = [:]
    private var uses: UInt64 = 0
    private let pages: WebPages
    private let logger: Logger

    init(pages: WebPages, logger: Logger) {
        self.pages = pages
        self.logger = logger
    }

    // MARK: Following the center

    /// Marks what a change touched; its groups render again when next read.
    mutating func invalidate(_ update: CenterUpdate) {
        if update.changesEverything {
            entries = entries.mapValues { Entry(lastUse: $0.lastUse) }
            return
        }
        if update.changesDevice {
            for view in entries.keys { entries[view]?.document = nil }
        }
        guard !update.groups.isEmpty else { return }
        for view in entries.keys {
            entries[view]?.stale.formUnion(update.groups)
            entries[view]?.order = nil
            entries[view]?.document = nil
        }
    }

    /// Forgets every rendering (the center was replaced).
    mutating func removeAll() {
        entries = [:]
    }

    /// The number of views rendered.
    var viewCount: Int { entries.count }

    /// Lets go of the least recently used views beyond the limit, keeping those that streams watch.
    mutating func trim(keeping watched: Set<CenterView>) {
        guard entries.count > Self.maximumUnwatchedViews else { return }
        let unwatched = entries.keys.filter { !watched.contains($0) }
        guard unwatched.count > Self.maximumUnwatchedViews else { return }
        let oldest = unwatched.sorted { entries[$0]!.lastUse < entries[$1]!.lastUse }
        for view in oldest.prefix(unwatched.count - Self.maximumUnwatchedViews) { entries[view] = nil }
    }

    // MARK: Reading

    /// The encoded groups a view shows, in center order.
    mutating func groups(_ view: CenterView, center: Center, attention: DeviceAttention) -> (order: [GroupID], fragments: [GroupID: String]) {
        refresh(view, center: center, attention: attention)
        let entry = entries[view]!
        return (entry.order!, entry.fragments)
    }

    /// Some groups' encoded text and their positions in the center; a group that no longer exists has
    /// neither.
    mutating func groups(
        _ ids: Set<GroupID>, view: CenterView, center: Center, attention: DeviceAttention
    ) -> [(group: GroupID, position: Int?, fragment: String?)] {
        let (order, fragments) = groups(view, center: center, attention: attention)
        var position: [GroupID: Int] = [:]
        if !ids.isEmpty {
            for (index, group) in order.enumerated() where ids.contains(group) { position[group] = index }
        }
        return ids.sorted { (position[$0] ?? .max, $0) < (position[$1] ?? .max, $1) }.map { group in
            (group, position[group], position[group] == nil ? nil : fragments[group])
        }
    }

    /// The view's whole document: the rendered center's JSON (scenario.md), or the page's stacks as HTML. The
    /// device's part, which its publisher adds, is not in it.
    mutating func document(_ view: CenterView, center: Center, attention: DeviceAttention) -> ByteBuffer {
        if let document = entries[view]?.document {
            touch(view)
            return document
        }
        let (order, fragments) = groups(view, center: center, attention: attention)
        var document = ByteBuffer()
        document.reserveCapacity(order.reduce(64) { $0 + fragments[$1]!.utf8.count + 1 })
        switch view.format {
        case .json:
            document.writeString(#"{"languages":"#)
            document.writeString(JSONValue.array(view.viewer.languages.map(JSONValue.string)).jsonText())
            document.writeString(#","locked":"# + (view.viewer.locked ? "true" : "false") + #","groups":["#)
            for (index, group) in order.enumerated() {
                if index > 0 { document.writeString(",") }
                document.writeString(fragments[group]!)
            }
            document.writeString("]}")
        case .html:
            for group in order { document.writeString(fragments[group]!) }
        }
        entries[view]?.document = document
        return document
    }

    // MARK: Rendering

    /// Brings a view's rendering up to date: everything the first time, then the stale groups.
    private mutating func refresh(_ view: CenterView, center: Center, attention: DeviceAttention) {
        touch(view)
        // Taken out of the table while it changes, so that its fragments are not copied.
        var entry = entries.removeValue(forKey: view)!
        var memory = entry.memory ?? RenderMemory(viewer: view.viewer)
        entry.memory = nil
        if !entry.isComplete {
            entry.order = center.groupIDs
            entry.fragments = render(entry.order!, view: view, center: center, attention: attention, memory: &memory)
            entry.isComplete = true
            entry.stale = []
        } else if !entry.stale.isEmpty {
            let rendered = render(entry.stale, view: view, center: center, attention: attention, memory: &memory)
            for group in entry.stale { entry.fragments[group] = rendered[group] }
            entry.stale = []
        }
        entry.memory = memory
        if entry.order == nil { entry.order = center.groupIDs }
        entries[view] = entry
    }

    private mutating func touch(_ view: CenterView) {
        uses += 1
        entries[view, default: Entry()].lastUse = uses
    }

    private func render(
        _ ids: some Sequence<GroupID>, view: CenterView, center: Center, attention: DeviceAttention, memory: inout RenderMemory
    ) -> [GroupID: String] {
        let (groups, diagnostics) = center.render(groups: ids, options: view.options, memory: &memory)
        for diagnostic in diagnostics { logger.warning("\(diagnostic)") }
        return groups.mapValues { group in
            let group = attention.marking(group)
            return switch view.format {
            case .json: group.json.jsonText()
            case .html: pages.group(group, languages: view.viewer.languages)
            }
        }
    }
}
