import Foundation
import HuddleCore
import Logging
import NIOCore

/// One device's live center: the center, its renderings for the views that look at it, and its streams.
///
/// Every change goes through ``apply(_:)``, which changes the center, marks what it touched in the
/// renderings, and gives each stream its event, encoded once per view and shared by the streams of that
/// view. It is a value owned by the device's session, so one owner orders every change, read and
/// subscription: a stream that joins between two changes starts from the state after the first and then
/// gets every later change once.
///
/// Events are Server-Sent Events. A center stream gets `center` (the whole center) when it starts or after
/// a change that touches everything, then one `change` per change, each with the change's number as its id,
/// so that a client can resume with `Last-Event-ID`, and one `device-event` per push that showed nothing
/// (``DeviceEvent``), which a resuming client gets again if it missed it and it is still kept, and
/// `activities` when the device's Live Activities change, which a resuming client gets (as they are now) if
/// it missed a change of them. A group stream gets `leading`, then `delivered` and `removed`.
struct CenterPublisher {
    private(set) var center: Center
    /// The number of the last change applied.
    private(set) var lastChange: UInt64
    /// The device's latest events, oldest first, at most ``DeviceEvent/keptPerDevice``.
    private(set) var events: [RecordedEvent]
    /// Its Live Activities as last stored, in the order they started.
    private(set) var activities: [LiveActivity]
    /// The number of the last change that changed them (0: none since the center was loaded); a stream
    /// resuming from before it gets them again.
    private var activitiesChange: UInt64 = 0
    /// Each app's declared activity types, whose templates draw the activities' cards.
    private var declarations: [String: ActivityDeclarations]
    /// What the person's settings hold beside the center: held notifications, silenced ones, the latest summary.
    private(set) var attention: DeviceAttention
    /// The person's settings of the device, as last stored.
    var settings: DeviceSettings { attention.settings }
    /// An Android phone's apps, by package name, whose channels and string resources draw its shade; `nil` for an
    /// iPhone. A phone with a shade shows it to every reader (``shade(for:)``), its streams included.
    private var shadeApps: [String: AndroidShade.App]?
    let subscribers = Subscribers()
    private var history: ChangeHistory
    private var cache: RenderCache
    private let pages: WebPages
    /// The server's clock: what a rendering of the device's part (a scheduled Focus) and the shade's times read.
    private let clock: @Sendable () -> Date

    init(
        center: Center, lastChange: UInt64, events: [RecordedEvent] = [], activities: [LiveActivity] = [],
        declarations: [String: ActivityDeclarations] = [:], attention: DeviceAttention = DeviceAttention(settings: .newDevice),
        shadeApps: [String: AndroidShade.App]? = nil, pages: WebPages = .shared, clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.clock = clock
        self.attention = attention
        self.shadeApps = shadeApps
        self.center = center
        self.lastChange = lastChange
        self.events = events.suffix(DeviceEvent.keptPerDevice)
        self.activities = activities
        self.declarations = declarations
        self.pages = pages
        history = ChangeHistory(horizon: lastChange)
        cache = RenderCache(pages: pages, logger: logger)
    }

    // MARK: Changing

    /// Applies the next committed change and tells every stream.
    mutating func apply(_ change: DeviceChange) -> CenterUpdate {
        // The name an app's activity cards show, before a save changes it.
        let nameBefore: String? = if case .appSaved(let app) = change.kind { center.registration(for: app.topic)?.visibleName } else { nil }
        let update = attention.apply(change, to: &center)
        lastChange = change.number
        history.record(update, center: center)
        cache.invalidate(update)
        publish(update)
        switch change.kind {
        case .event(let event): keep(RecordedEvent(number: change.number, event: event))
        case .activities(let activities): show(activities, change: change.number)
        case .appDeleted(let topic):
            declarations[topic] = nil
            shadeApps?[topic] = nil
            // The store removed its activities with the app, in the same change.
            if activities.contains(where: { $0.app == topic }) { show(activities.filter { $0.app != topic }, change: change.number) }
        case .appSaved(let app):
            if shadeApps != nil { shadeApps?[app.topic] = center.registration(for: app.topic) != nil ? AndroidShade.App(record: app) : nil }
            let redraws = declarations[app.topic] != app.activities || center.registration(for: app.topic)?.visibleName != nameBefore
            declarations[app.topic] = app.activities
            // A new name or template draws its activities anew; a save that changed neither (categories, settings, files)
            // leaves the cards as they are, and sends nothing.
            if redraws, activities.contains(where: { $0.app == app.topic }) { show(activities, change: change.number) }
        default: break
        }
        return update
    }

    /// Keeps the activities as stored now and sends them to every center stream (``activitiesEvent``).
    private mutating func show(_ newActivities: [LiveActivity], change number: UInt64) {
        activities = newActivities
        activitiesChange = number
        publishToCenterStreams(activitiesEvent())
    }

    /// `{"change", "activities", "lockScreen"}`: the activities as ``LiveActivity/json`` writes them, in the
    /// order they started, and the cards the page draws for them, in the Lock Screen's order
    /// (``ActivityCard/json``).
    private func activitiesEvent() -> String {
        let cards = ActivityCard.cards(DeviceActivities(activities: activities).lockScreenOrder, center: center, declarations: declarations)
        return ServerSentEvent.event(
            id: activitiesChange, name: "activities",
            data: JSONValue.object(JSONObject([
                ("change", .integer(Int64(activitiesChange))), ("activities", .array(activities.map(\.json))),
                ("lockScreen", .array(cards.map(\.json))),
            ])).jsonText())
    }

    /// The activities drawn as the page's Lock Screen shows them at `now`.
    func activityCards(at now: Date) -> [ActivityCard] {
        var lockScreen = DeviceActivities(activities: activities)
        _ = lockScreen.advance(to: now)
        return ActivityCard.cards(lockScreen.lockScreenOrder, center: center, declarations: declarations)
    }

    /// Sends an event to every center stream, whatever its view. The event is written only when one is open:
    /// every background push and every activity change comes here, most with no one watching.
    private func publishToCenterStreams(_ text: @autoclosure () -> String) {
        let centerTopics = subscribers.topics.filter { if case .center = $0 { true } else { false } }
        guard !centerTopics.isEmpty else { return }
        let event = ByteBuffer(string: text())
        subscribers.publish(Dictionary(uniqueKeysWithValues: centerTopics.map { ($0, event) }))
    }

    /// Keeps an event among the latest and sends it to every center stream, whatever its view.
    private mutating func keep(_ recorded: RecordedEvent) {
        events.append(recorded)
        if events.count > DeviceEvent.keptPerDevice { events.removeFirst(events.count - DeviceEvent.keptPerDevice) }
        publishToCenterStreams(Self.deviceEvent(recorded))
    }

    private static func deviceEvent(_ recorded: RecordedEvent) -> String {
        ServerSentEvent.event(id: recorded.number, name: "device-event", data: recorded.event.json(number: recorded.number).jsonText())
    }

    /// Replaces the whole center (read again from storage, when the changes that led to it are no longer
    /// kept): streams start over from the new center, and group streams hear what left and what arrived.
    mutating func replace(
        with newCenter: Center, lastChange number: UInt64, events newEvents: [RecordedEvent], activities newActivities: [LiveActivity],
        declarations newDeclarations: [String: ActivityDeclarations], attention newAttention: DeviceAttention,
        shadeApps newShadeApps: [String: AndroidShade.App]?
    ) {
        attention = newAttention
        shadeApps = newShadeApps
        var update = CenterUpdate(number: number)
        update.changesEverything = true
        let watchedGroups = Set(subscribers.topics.compactMap { topic -> GroupID? in
            if case .group(let group, _) = topic { return group }
            return nil
        })
        update.groupEvents = Center.groupEvents(from: center, to: newCenter, in: watchedGroups)
        center = newCenter
        lastChange = number
        events = newEvents.suffix(DeviceEvent.keptPerDevice)
        let activitiesChanged = newActivities != activities || newDeclarations != declarations
        declarations = newDeclarations
        history = ChangeHistory(horizon: number)
        cache.removeAll()
        publish(update)
        // When they changed, or may have, in the changes not read: after the center, as a change would.
        if activitiesChanged { show(newActivities, change: number) } else { activities = newActivities }
    }

    // MARK: Reading

    /// A view's whole document (see ``RenderCache/document(_:center:)``).
    mutating func document(_ view: CenterView) -> ByteBuffer {
        defer { if cache.viewCount > RenderCache.maximumUnwatchedViews { cache.trim(keeping: watchedViews(in: subscribers.topics)) } }
        return withDevice(cache.document(view, center: center, attention: attention), view: view)
    }

    /// A JSON document with the device's part as its last member, when the person's settings are in play.
    private func withDevice(_ document: ByteBuffer, view: CenterView) -> ByteBuffer {
        guard view.format == .json, attention.isInPlay, document.readableBytes > 0 else { return document }
        var document = document
        // The document ends with the center's closing brace; the device's part goes before it.
        document.moveWriterIndex(to: document.writerIndex - 1)
        document.writeString(#","device":"# + device(for: view.viewer).json.jsonText() + "}")
        return document
    }

    /// The device's part for a viewer, now (a scheduled Focus is on or not by the clock).
    private func device(for viewer: Viewer) -> RenderedDevice {
        attention.render(groups: center.groupSizes, for: viewer, at: clock())
    }

    /// The page's part for the person's settings (the Focus, the summary, what waits, the Lock Screen's count), as
    /// HTML; empty when they are not in play.
    func deviceHTML(for viewer: Viewer) -> String {
        attention.display(center: center, for: viewer, at: clock()).map { pages.device($0, languages: viewer.languages) } ?? ""
    }

    /// An Android phone's shade as `viewer` sees it (docs/fcm.md, "Android's shade"), its lock screen's visibilities
    /// applied: what every view of such a phone shows (its center route, its page, its stream); `nil` for an iPhone.
    func shade(for viewer: Viewer) -> AndroidShade? {
        guard let shadeApps else { return nil }
        let notifications = center.registeredApps.flatMap { center.deliveredNotifications(app: $0) }
        return AndroidShade(
            notifications: notifications, apps: shadeApps.values.sorted { $0.topic < $1.topic }, locked: viewer.locked, languages: viewer.languages)
    }

    /// How many views have renderings kept (for tests).
    var renderedViewCount: Int { cache.viewCount }

    // MARK: Subscribing

    /// Opens a center stream. It starts with the whole center, or with the groups changed since the client's
    /// number (`resumingAfter`, its `Last-Event-ID`), or with nothing when the client is up to date. A client
    /// that resumes gets first the `device-event`s it missed that are still kept, oldest first, then the
    /// `activities` as they are now if they changed after its number: neither is part of the center, so
    /// neither the groups changed nor the whole center would tell it of them.
    /// - Parameter byteLimit: how many bytes may wait for the stream's client before the stream is ended.
    mutating func subscribe(_ view: CenterView, resumingAfter: UInt64?, byteLimit: Int) -> Subscription {
        var missed = ""
        if let resumingAfter {
            for recorded in events where recorded.number > resumingAfter { missed += Self.deviceEvent(recorded) }
            if activitiesChange > resumingAfter { missed += activitiesEvent() }
        }
        var state: ByteBuffer?
        if shadeApps != nil {
            // A shade is sent whole: a client that has the latest has nothing to catch up on.
            state = resumingAfter == lastChange ? nil : centerEvent(view)
        } else if let resumingAfter, let changed = history.groupsChanged(after: resumingAfter, lastChange: lastChange) {
            if resumingAfter < lastChange {
                var update = CenterUpdate(number: lastChange)
                update.groups = changed
                state = changeEvent(update, view: view)
            }
        } else {
            state = centerEvent(view)
        }
        var prelude = state
        if !missed.isEmpty {
            var both = ByteBuffer(string: missed)
            if var state { both.writeBuffer(&state) }
            prelude = both
        }
        return Subscription(topic: .center(view), prelude: prelude, byteLimit: byteLimit, subscribers: subscribers)
    }

    /// Opens a group stream: the group's leading notification (if it has one now), then every later delivery
    /// to it and removal from it.
    func subscribe(_ group: GroupID, viewer: Viewer, byteLimit: Int) -> Subscription {
        let prelude = center.leadingNotification(of: group).map { ByteBuffer(string: groupEvent(.leading($0), viewer: viewer)) }
        return Subscription(topic: .group(group, viewer), prelude: prelude, byteLimit: byteLimit, subscribers: subscribers)
    }

    // MARK: Publishing

    private mutating func publish(_ update: CenterUpdate) {
        let topics = subscribers.topics
        guard !topics.isEmpty else { return }
        var events: [Subscribers.Topic: ByteBuffer] = [:]
        for topic in topics {
            switch topic {
            case .center(let view):
                // A locked viewer's device part (the Lock Screen's count and cards) follows every group; an unlocked
                // one's changes only with what the settings hold.
                let deviceFollowsGroups = view.viewer.locked && attention.isInPlay && !update.groups.isEmpty
                let redrawsShade = shadeApps != nil && !update.groups.isEmpty
                if update.changesEverything || update.changesDevice || deviceFollowsGroups || redrawsShade {
                    events[topic] = centerEvent(view)
                } else if !update.groups.isEmpty {
                    events[topic] = changeEvent(update, view: view)
                }
            case .group(let group, let viewer):
                var text = ""
                for (eventGroup, event) in update.groupEvents where eventGroup == group { text += groupEvent(event, viewer: viewer) }
                if !text.isEmpty { events[topic] = ByteBuffer(string: text) }
            }
        }
        cache.trim(keeping: watchedViews(in: topics))
        subscribers.publish(events)
    }

    private func watchedViews(in topics: [Subscribers.Topic]) -> Set<CenterView> {
        Set(topics.compactMap { topic -> CenterView? in
            if case .center(let view) = topic { return view }
            return nil
        })
    }

    // MARK: Events

    /// The whole center: `{"change", "center"}` in JSON, `{"change", "html"}` with the page's stacks; an Android
    /// phone's shade, `{"change", "shade"}` in JSON and `{"change", "html"}` as its page shows it.
    private mutating func centerEvent(_ view: CenterView) -> ByteBuffer {
        if let shade = shade(for: view.viewer) {
            let rendering: (String, JSONValue) =
                switch view.format {
                case .json: ("shade", shade.json)
                case .html: ("html", .string(pages.shade(shade, languages: view.viewer.languages, change: lastChange, now: clock())))
                }
            let data = JSONValue.object(JSONObject([("change", .integer(Int64(lastChange))), rendering]))
            return ByteBuffer(string: ServerSentEvent.event(id: lastChange, name: "center", data: data.jsonText()))
        }
        var document = withDevice(cache.document(view, center: center, attention: attention), view: view)
        var event = ByteBuffer(string: ServerSentEvent.head(id: lastChange, name: "center") + "{\"change\":\(lastChange),")
        switch view.format {
        case .json:
            event.writeString(#""center":"#)
            event.writeBuffer(&document)
        case .html:
            event.writeString(#""html":"# + JSONValue.string(String(buffer: document)).jsonText())
            // The page's part for the person's settings, and the Lock Screen's layout its stacks follow.
            event.writeString(#","device":"# + JSONValue.string(deviceHTML(for: view.viewer)).jsonText())
            event.writeString(#","layout":"# + JSONValue.string(attention.isInPlay ? attention.settings.lockScreen.rawValue : "").jsonText())
        }
        event.writeString("}" + ServerSentEvent.end)
        return event
    }

    /// The groups a change touched, each with its position in the center (or listed as removed), and the
    /// notifications delivered and removed.
    private mutating func changeEvent(_ update: CenterUpdate, view: CenterView) -> ByteBuffer {
        var groups: [String] = []
        var removedGroups: [JSONValue] = []
        for (group, position, fragment) in cache.groups(update.groups, view: view, center: center, attention: attention) {
            guard let position, let fragment else {
                removedGroups.append(.string(group.description))
                continue
            }
            switch view.format {
            case .json:
                groups.append(#"{"position":\#(position),"group":\#(fragment)}"#)
            case .html:
                let id = JSONValue.string(group.description).jsonText()
                groups.append(#"{"id":\#(id),"position":\#(position),"html":\#(JSONValue.string(fragment).jsonText())}"#)
            }
        }
        let delivered = JSONValue.array(update.delivered.map(JSONValue.string)).jsonText()
        let removed = JSONValue.array(update.removed.map(JSONValue.string)).jsonText()
        let data = #"{"change":\#(update.number),"groups":[\#(groups.joined(separator: ","))],"removedGroups":\#(JSONValue.array(removedGroups).jsonText()),"delivered":\#(delivered),"removed":\#(removed)}"#
        return ByteBuffer(string: ServerSentEvent.event(id: update.number, name: "change", data: data))
    }

    /// A group stream's event: the notification as the viewer sees it. A removed notification whose app is
    /// gone cannot be rendered; its identifier is what the client needs.
    private func groupEvent(_ event: GroupEvent, viewer: Viewer) -> String {
        let (name, notification) = switch event {
        case .leading(let notification): ("leading", notification)
        case .delivered(let notification): ("delivered", notification)
        case .removed(let notification): ("removed", notification)
        }
        let data = center.render(notification: notification, for: viewer)?.json
            ?? .object(JSONObject([("id", .string(notification.identifier))]))
        return ServerSentEvent.event(name: name, data: data.jsonText())
    }
}

/// Which change last touched each group, so that a resuming stream gets just the groups changed since
/// its number.
private struct ChangeHistory {
    /// How many removed groups are remembered for resuming clients.
    static let removedGroupLimit = 10_000

    /// Changes after this number are known group by group; a client resuming from before it gets the
    /// whole center.
    private var horizon: UInt64
    /// The change that last touched each group, after the horizon.
    private var groupChanges: [GroupID: UInt64] = [:]
    /// Groups that went away after the horizon, with the change that removed them.
    private var removedGroups: [GroupID: UInt64] = [:]

    init(horizon: UInt64) {
        self.horizon = horizon
    }

    mutating func record(_ update: CenterUpdate, center: Center) {
        if update.changesEverything {
            self = ChangeHistory(horizon: update.number)
            return
        }
        for group in update.groups {
            if center.leadingNotification(of: group) == nil {
                groupChanges[group] = nil
                removedGroups[group] = update.number
            } else {
                groupChanges[group] = update.number
                removedGroups[group] = nil
            }
        }
        forgetOldRemovedGroups()
    }

    /// The groups changed after `number`; `nil` when that is from before what is remembered (or after the
    /// last change: not a number this device gave).
    func groupsChanged(after number: UInt64, lastChange: UInt64) -> Set<GroupID>? {
        guard number >= horizon, number <= lastChange else { return nil }
        var changed = Set(groupChanges.filter { $0.value > number }.keys)
        changed.formUnion(removedGroups.filter { $0.value > number }.keys)
        return changed
    }

    /// Keeps the memory of removed groups bounded: the oldest are forgotten, and clients resuming from
    /// before them get the whole center.
    private mutating func forgetOldRemovedGroups() {
        guard removedGroups.count > Self.removedGroupLimit else { return }
        let sorted = removedGroups.sorted { $0.value < $1.value }
        let forgotten = sorted.prefix(sorted.count / 2)
        horizon = max(horizon, forgotten.last?.value ?? horizon)
        for (group, _) in forgotten { removedGroups[group] = nil }
    }
}
