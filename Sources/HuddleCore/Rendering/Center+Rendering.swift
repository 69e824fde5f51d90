import HuddleLocalization

extension Center {
    /// Renders the center for a viewer: groups in order, summaries, hidden previews, every text resolved in
    /// the viewer's languages (behavior.md sections 4 to 7, scenario.md).
    ///
    /// A pure function of the center's state and the viewer.
    /// - Complexity: O(g + n) for g groups and the n notifications rendered; summaries come from each
    ///   group's running totals, not from its notifications.
    public func render(for viewer: Viewer, options: RenderOptions = RenderOptions()) -> RenderedCenter {
        var resolver = TextResolver(viewer: viewer)
        var groups: [RenderedGroup] = []
        for id in groupIDs {
            if let group = renderGroup(id, resolver: &resolver, options: options) { groups.append(group) }
        }
        return RenderedCenter(
            languages: viewer.languages, locked: viewer.locked, groups: groups, diagnostics: resolver.diagnostics)
    }

    /// Renders one group, or `nil` if there is no such group.
    public func render(group id: GroupID, for viewer: Viewer, options: RenderOptions = RenderOptions()) -> RenderedGroup? {
        var resolver = TextResolver(viewer: viewer)
        return renderGroup(id, resolver: &resolver, options: options)
    }

    /// Renders some groups for one viewer, sharing the lookups of their texts (a live layer renders again
    /// just the groups a change touched). Groups that do not exist are left out.
    public func render(
        groups ids: some Sequence<GroupID>, for viewer: Viewer, options: RenderOptions = RenderOptions()
    ) -> (groups: [GroupID: RenderedGroup], diagnostics: [String]) {
        var memory = RenderMemory(viewer: viewer)
        return render(groups: ids, options: options, memory: &memory)
    }

    /// Renders some groups for the memory's viewer, with what earlier renderings for that viewer resolved
    /// (see ``RenderMemory``). A diagnostic about a format is reported by the rendering that first resolved it.
    public func render(
        groups ids: some Sequence<GroupID>, options: RenderOptions = RenderOptions(), memory: inout RenderMemory
    ) -> (groups: [GroupID: RenderedGroup], diagnostics: [String]) {
        var groups: [GroupID: RenderedGroup] = [:]
        for id in ids {
            if let group = renderGroup(id, resolver: &memory.resolver, options: options) { groups[id] = group }
        }
        memory.resolver.forgetIfFull()
        return (groups, memory.resolver.takeDiagnostics())
    }

    /// Renders one delivered notification as it shows for the viewer (hidden previews applied).
    public func render(notification: DeliveredNotification, for viewer: Viewer) -> RenderedNotification? {
        guard let registration = apps[notification.app]?.registration else { return nil }
        var resolver = TextResolver(viewer: viewer)
        return renderNotification(
            notification, registration: registration,
            previewsHidden: registration.settings.hidesPreviews(locked: viewer.locked), resolver: &resolver)
    }

    private func renderGroup(_ id: GroupID, resolver: inout TextResolver, options: RenderOptions) -> RenderedGroup? {
        guard let appState = apps[id.app], let group = appState.groups[id.kind], let leadingMember = group.leading,
            case let leading = appState.notifications[slot: leadingMember.slot]
        else { return nil }
        let registration = appState.registration
        let previewsHidden = registration.settings.hidesPreviews(locked: resolver.viewer.locked)
        var summarizer = GroupSummarizer(registration: registration, group: group, leading: leading)
        let summary = previewsHidden ? nil : summarizer.summary(resolver: &resolver)
        let hiddenText = previewsHidden ? summarizer.hiddenPreviewsText(resolver: &resolver) : nil

        let limit = min(options.notificationLimit ?? group.count, group.count)
        var notifications: [RenderedNotification] = []
        notifications.reserveCapacity(limit)
        for member in group.members.reversed().prefix(limit) {
            let notification = appState.notifications[slot: member.slot]
            notifications.append(
                renderNotification(notification, registration: registration, previewsHidden: previewsHidden, resolver: &resolver))
        }
        return RenderedGroup(
            id: id.description, app: id.app, appName: registration.visibleName, thread: id.thread, count: group.count, previewsHidden: previewsHidden,
            summary: summary, hiddenPreviewsText: hiddenText, notifications: notifications)
    }

    private func renderNotification(
        _ notification: DeliveredNotification, registration: AppRegistration, previewsHidden: Bool,
        resolver: inout TextResolver
    ) -> RenderedNotification {
        let content = notification.content
        let options = registration.categories[content.categoryIdentifier]?.options ?? []
        let showTitle = !previewsHidden || options.contains(.hiddenPreviewsShowTitle)
        let showSubtitle = !previewsHidden || options.contains(.hiddenPreviewsShowSubtitle)
        let bundle = registration.localizations
        let context = "\(notification.app) notification \"\(notification.identifier)\""
        return RenderedNotification(
            id: notification.identifier,
            date: notification.date,
            title: showTitle ? resolver.text(content.title, bundle: bundle, context: context) : nil,
            subtitle: showSubtitle ? resolver.text(content.subtitle, bundle: bundle, context: context) : nil,
            body: previewsHidden ? nil : resolver.text(content.body, bundle: bundle, context: context),
            categoryIdentifier: content.categoryIdentifier,
            threadIdentifier: content.threadIdentifier,
            summaryArgument: content.summaryArgument,
            summaryArgumentCount: content.summaryArgumentCount,
            interruptionLevel: content.interruptionLevel,
            relevanceScore: content.relevanceScore,
            userInfo: content.userInfo)
    }
}

/// Builds a group's summary line and hidden-previews line from its running totals.
struct GroupSummarizer {
    let registration: AppRegistration
    let group: GroupState
    let leading: DeliveredNotification

    /// Where a part's format comes from: a category's own text, or Huddle's default.
    enum Source: Hashable {
        case app(LocalizableText)
        case huddleDefault
    }

    /// Notifications sharing one format: their count, their arguments with each one's newest stamp, and
    /// the newest stamp among them (parts are listed newest first).
    struct Part {
        var count = 0
        var newest: DeliveryStamp?
        /// Each argument with its newest stamp in one category; an argument of several categories sharing
        /// this format appears once per category (a list, not a dictionary: it is built for every group of
        /// every rendering, and hashing cost more than the rest of the summary).
        var arguments: [(argument: String, stamp: DeliveryStamp)] = []

        mutating func add(count: Int, newest: DeliveryStamp, arguments: [(argument: String, stamp: DeliveryStamp)]) {
            self.count = self.count.addingSaturating(count)
            if self.newest.map({ newest > $0 }) ?? true { self.newest = newest }
            self.arguments += arguments
        }

        /// Arguments newest first, each once (at its newest); compared by Unicode scalars, as the
        /// group's tallies are.
        var orderedArguments: [String] {
            var seen: Set<ExactString> = []
            return arguments.sorted { $0.stamp > $1.stamp }.map(\.argument).filter { seen.insert(ExactString($0)).inserted }
        }
    }

    init(registration: AppRegistration, group: GroupState, leading: DeliveredNotification) {
        self.registration = registration
        self.group = group
        self.leading = leading
    }

    /// The summary of the notifications below the leading one (behavior.md section 4), or `nil` for a group
    /// of one.
    mutating func summary(resolver: inout TextResolver) -> String? {
        guard group.count > 1 else { return nil }
        let parts = restParts()
        let total = parts.values.reduce(0) { $0.addingSaturating($1.count) }
        var resolved: [(format: TextResolver.LocalizedFormat, part: Part)] = []
        for (source, part) in parts {
            let format: TextResolver.LocalizedFormat?
            switch source {
            case .app(let text):
                format = resolver.format(
                    text, role: .summary, count: part.count, app: registration.bundleIdentifier,
                    bundle: registration.localizations)
            case .huddleDefault:
                format = defaultSummary(count: part.count, withArguments: !part.arguments.isEmpty, resolver: &resolver)
            }
            // An app format that turned invalid after localization: the default, without arguments.
            guard let format else { return defaultSummaryText(count: total, resolver: &resolver) }
            resolved.append((format, part))
        }
        if resolved.count == 1, let only = resolved.first {
            let arguments = only.part.orderedArguments
            if only.format.format.takesArgument && arguments.isEmpty {
                return defaultSummaryText(count: total, resolver: &resolver)
            }
            return resolver.render(only.format, count: total, arguments: only.format.format.takesArgument ? arguments : [])
        }
        if resolved.contains(where: \.format.format.takesArgument) {
            return defaultSummaryText(count: total, resolver: &resolver)
        }
        let ordered = resolved.sorted { ($0.part.newest ?? leading.stamp) > ($1.part.newest ?? leading.stamp) }
        let pieces = ordered.map { resolver.render($0.format, count: $0.part.count, arguments: []) }
        return resolver.join(pieces, language: ordered.first?.format.language ?? resolver.viewer.formattingLocale)
    }

    /// The line for the whole group when previews are hidden (behavior.md section 5).
    mutating func hiddenPreviewsText(resolver: inout TextResolver) -> String? {
        var parts: [Source: Part] = [:]
        for (categoryIdentifier, tally) in group.tallies.entries {
            guard let newest = tally.stamps.last else { continue }
            let placeholder = registration.categories[categoryIdentifier]?.hiddenPreviewsBodyPlaceholder
            let source: Source = placeholder.map { $0.isEmpty ? .huddleDefault : .app($0) } ?? .huddleDefault
            parts[source, default: Part()].add(count: tally.stamps.count, newest: newest, arguments: [])
        }
        var language: String?
        var pieces: [String] = []
        for (source, part) in parts.sorted(by: { ($0.value.newest ?? leading.stamp) > ($1.value.newest ?? leading.stamp) }) {
            guard let format = placeholder(source, count: part.count, resolver: &resolver) else { continue }
            language = language ?? format.language
            pieces.append(resolver.render(format, count: part.count, arguments: []))
        }
        return resolver.join(pieces, language: language ?? resolver.viewer.formattingLocale)
    }

    private func placeholder(_ source: Source, count: Int, resolver: inout TextResolver) -> TextResolver.LocalizedFormat? {
        if case .app(let text) = source,
            let format = resolver.format(
                text, role: .placeholder, count: count, app: registration.bundleIdentifier, bundle: registration.localizations)
        {
            return format
        }
        let key = count == 1 ? HuddleStrings.placeholderSingle : HuddleStrings.placeholder
        return resolver.defaultFormat(key, role: .placeholder, count: count)
    }

    private func defaultSummary(count: Int, withArguments: Bool, resolver: inout TextResolver) -> TextResolver.LocalizedFormat? {
        resolver.defaultFormat(withArguments ? HuddleStrings.summaryWithArguments : HuddleStrings.summary, role: .summary, count: count)
    }

    private func defaultSummaryText(count: Int, resolver: inout TextResolver) -> String? {
        defaultSummary(count: count, withArguments: false, resolver: &resolver).map {
            resolver.render($0, count: count, arguments: [])
        }
    }

    /// The notifications below the leading one, gathered by the format they use.
    /// - Complexity: O(c + a) in the group's categories and distinct arguments.
    private func restParts() -> [Source: Part] {
        var parts: [Source: Part] = [:]
        let leadingContent = leading.content
        for (categoryIdentifier, tally) in group.tallies.entries {
            let holdsLeading = categoryIdentifier == leadingContent.categoryIdentifier
            let stamps = tally.stamps
            // The leading notification is the group's newest, so it is the last stamp of its category.
            let restStampCount = stamps.count - (holdsLeading ? 1 : 0)
            guard restStampCount > 0 else { continue }
            let newest = stamps[restStampCount - 1]
            let count = tally.countSum - (holdsLeading ? leadingContent.effectiveSummaryArgumentCount : 0)
            var arguments: [(argument: String, stamp: DeliveryStamp)] = []
            for (argument, argumentStamps) in tally.arguments.entries {
                if holdsLeading, argument.isExactlyEqual(to: leadingContent.summaryArgument) {
                    if argumentStamps.count > 1 { arguments.append((argument, argumentStamps[argumentStamps.count - 2])) }
                } else if let last = argumentStamps.last {
                    arguments.append((argument, last))
                }
            }
            let format = registration.categories[categoryIdentifier]?.categorySummaryFormat
            let source: Source = format.map { $0.isEmpty ? .huddleDefault : .app($0) } ?? .huddleDefault
            parts[source, default: Part()].add(count: count, newest: newest, arguments: arguments)
        }
        return parts
    }
}
