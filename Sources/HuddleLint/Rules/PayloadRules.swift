import HuddleAPNs
import HuddleCore
import HuddleLocalization

/// A payload file to lint.
struct PayloadInput {
    let document: JSONDocument
    let reading: PushTypeReading

    var pushType: PushType { reading.type }

    /// The app a Simulator file names (`Simulator Target Bundle`).
    var simulatorTargetBundle: String? {
        document.json["Simulator Target Bundle"]?.stringValue
    }

    /// The payload as a provider sends it: without the Simulator's own key.
    var payload: JSONValue {
        guard case .object(var object) = document.json else { return document.json }
        object["Simulator Target Bundle"] = nil
        return .object(object)
    }
}

/// The payload rules: what APNs refuses or ignores, and what the app's categories and catalogs say of a
/// push. Findings go to the payload's document, at the key path they are about.
struct PayloadRules {
    typealias Path = JSONDocument.Path

    /// One visible push of an app, for ``LintRule/threadIdMix``.
    private struct Push {
        var document: JSONDocument
        var path: Path
        var hasThread: Bool
    }

    private var pushesByApp: [String: [Push]] = [:]
    /// Each app's strings by bundle identifier ("" for the unnamed app), merged once.
    private let bundles: [String: LocalizationBundle]

    /// - Parameter bundles: the strings of every app that has catalogs (an app first named by a payload
    ///   has none).
    init(bundles: [String: LocalizationBundle]) {
        self.bundles = bundles
    }

    /// Lints a payload file for `app`.
    mutating func check(_ input: PayloadInput, app: LintApp) {
        guard input.pushType != .liveactivity else {
            LiveActivityRules.check(input.payload, in: input.document, at: [], declarations: app.liveActivities)
            return
        }
        let categories = app.categories?.mapValues(\.category)
        checkPayload(input.payload, in: input.document, at: [], pushType: input.pushType, app: app, categories: categories)
        LiveActivityRules.checkPushType(input.payload, pushType: input.pushType, in: input.document, at: [])
    }

    /// Lints an APNs payload inside another document (an FCM message's `apns.payload`) at `prefix`.
    mutating func checkEmbedded(_ payload: JSONValue, in document: JSONDocument, at prefix: Path, pushType: PushType, app: LintApp) {
        let categories = app.categories?.mapValues(\.category)
        checkPayload(payload, in: document, at: prefix, pushType: pushType, app: app, categories: categories)
        LiveActivityRules.checkPushType(payload, pushType: pushType, in: document, at: prefix)
    }

    /// Lints the payloads a scenario delivers, each against its app's categories as the events before it
    /// left them.
    mutating func checkEvents(of scenario: Scenario, in document: JSONDocument, apps: [String: LintApp]) {
        var categories: [String: [String: NotificationCategory]] = [:]
        for app in scenario.apps {
            categories[app.bundleIdentifier] = Dictionary(app.categories.map { ($0.identifier, $0) }) { first, _ in first }
        }
        let rawEvents = document.json["events"]?.arrayValue ?? []
        /// The type of each activity a start named, by app and name, for the updates and ends that follow.
        var activityTypes: [String: String] = [:]
        for event in scenario.events {
            switch event.action {
            case .liveActivity(let app, let activity, _, let payload):
                let key = app + "\u{0}" + activity
                if case .string("start")? = payload["aps"]?["event"], case .string(let type)? = payload["aps"]?["attributes-type"] {
                    activityTypes[key] = type
                }
                let declarations = apps[app]?.liveActivities ?? ActivityDeclarations()
                LiveActivityRules.check(
                    payload, in: document, at: [.key("events"), .index(event.index), .key("liveActivity"), .key("payload")],
                    declarations: declarations, typeName: activityTypes[key])
            case .setCategories(let app, let newCategories):
                categories[app] = Dictionary(newCategories.map { ($0.identifier, $0) }) { first, _ in first }
            case .deliver(let app, _):
                guard rawEvents.indices.contains(event.index), let payload = rawEvents[event.index]["deliver"]?["payload"] else {
                    continue
                }
                let eventPath: Path = [.key("events"), .index(event.index), .key("deliver")]
                var pushType = PushType.alert
                if case .string(let name)? = rawEvents[event.index]["deliver"]?["pushType"] {
                    guard let named = PushType(rawValue: name), named != .liveactivity else {
                        document.report(
                            .invalidScenario, at: eventPath + [.key("pushType")],
                            "\"\(name)\" is not a push type a deliver event takes (\(PushType.allCases.filter { $0 != .liveactivity }.map(\.rawValue).joined(separator: ", ")); Live Activity pushes are liveActivity events)")
                        continue
                    }
                    pushType = named
                }
                checkPayload(
                    payload, in: document, at: eventPath + [.key("payload")],
                    pushType: pushType, app: apps[app] ?? LintApp(bundleIdentifier: app), categories: categories[app])
                LiveActivityRules.checkPushType(payload, pushType: pushType, in: document, at: eventPath + [.key("payload")])
            default:
                continue
            }
        }
    }

    /// One finding per app whose visible pushes mix ones with a thread-id and ones without, at the first
    /// push without one.
    mutating func reportThreadMixes() {
        for (app, pushes) in pushesByApp.sorted(by: { $0.key < $1.key }) {
            let threadless = pushes.filter { !$0.hasThread }
            guard !threadless.isEmpty, threadless.count < pushes.count, let first = threadless.first else { continue }
            let name = app.isEmpty ? "the app" : app
            let carry = threadless.count == 1 ? "carries" : "carry"
            let stack = threadless.count == 1 ? "it stacks" : "they stack"
            first.document.report(
                .threadIdMix, at: first.path + [.key("aps")],
                "\(threadless.count) of the \(pushes.count) pushes to \(name) \(carry) no thread-id (this is the first), so \(stack) in the app's own group apart from the threads of the others: "
                    + "add a thread-id to each, or, if the app means it (as Calendar keeps invitations apart from event alerts), silence this with --disable thread-id-mix")
        }
    }

    // MARK: One payload

    /// A level the app's description gives it no right to: iOS treats it as active (docs/summary-and-focus.md). Said
    /// only of an app that is described, since nothing is known of one that is not.
    private func checkInterruptionLevel(_ level: InterruptionLevel, in document: JSONDocument, at prefix: Path, app: LintApp) {
        guard let described = app.describedIn else { return }
        let missing: String
        switch level {
        case .timeSensitive where !app.capabilities.timeSensitive:
            missing = "the Time Sensitive Notifications capability (\"capabilities\": [\"timeSensitive\"]; in Xcode, Signing & Capabilities › Time Sensitive Notifications)"
        case .critical where !app.capabilities.criticalAlerts:
            missing = "the Critical Alerts entitlement, which Apple grants on request (\"capabilities\": [\"criticalAlerts\"])"
        default:
            return
        }
        document.report(
            .interruptionLevelCapability, at: document.path("aps.interruption-level", under: prefix),
            "interruption-level \(level.apnsName) from \(app.name), whose description (\(described)) does not declare \(missing): iOS treats it as active, so it breaks through neither the scheduled summary nor a Focus")
    }

    private mutating func checkPayload(
        _ json: JSONValue, in document: JSONDocument, at prefix: Path, pushType: PushType, app: LintApp,
        categories: [String: NotificationCategory]?
    ) {
        let payload: APNsPayload
        do {
            payload = try APNsPayload.decode(json)
        } catch {
            document.report(
                .invalidPayload, at: error.path.map { document.path($0, under: prefix) } ?? prefix,
                "\(error.description): APNs refuses this payload or Huddle cannot show it; fix the value")
            return
        }
        checkInterruptionLevel(payload.content.interruptionLevel, in: document, at: prefix, app: app)
        let size = json.jsonUTF8().count
        if size > pushType.maximumPayloadSize {
            document.report(
                .payloadTooLarge, at: prefix,
                "the payload is \(size) bytes as compact JSON, more than the \(pushType.maximumPayloadSize) APNs accepts for \(pushType.rawValue) pushes (it answers PayloadTooLarge): shorten the texts or send less custom data")
        }
        let content = payload.content
        for note in payload.notes {
            report(note, count: content.summaryArgumentCount, in: document, at: prefix)
        }
        if content.isVisible {
            pushesByApp[app.bundleIdentifier ?? "", default: []].append(
                Push(document: document, path: prefix, hasThread: !content.threadIdentifier.isEmpty))
        }
        checkCategory(content, in: document, at: prefix, app: app, categories: categories)
        checkLocalizedTexts(json, content: content, in: document, at: prefix, app: app)
    }

    /// - Parameter count: the payload's `summary-arg-count` as sent.
    private func report(_ note: PayloadNote, count: Int, in document: JSONDocument, at prefix: Path) {
        let path = prefix + JSONLocator.components(of: note.object) + [.key(note.key)]
        switch note.kind {
        case .unknownKey:
            var message = "`\(note.key)` is not a key of \(note.object), so APNs accepts the push and ignores it"
            if let suggestion = note.suggestion {
                message += suggestion.object == note.object
                    ? ": did you mean `\(suggestion.key)`?" : ": it belongs in \(suggestion.object).\(suggestion.key)"
            } else {
                message += ": remove it, or move it beside aps if the app reads it"
            }
            document.report(.unknownKey, at: path, message)
        case .summaryArgumentCountNotPositive:
            document.report(
                .summaryArgCount, at: path,
                "summary-arg-count \(count) is not a positive integer, so iOS counts it as 1: send how many items this push stands for (a push about 3 new episodes sends 3)")
        case .summaryArgumentCountTooLarge:
            document.report(
                .summaryArgCount, severity: .warning, at: path,
                "summary-arg-count \(count) is more than \(NotificationContent.maximumSummaryArgumentCount), so it counts as \(NotificationContent.maximumSummaryArgumentCount): send a real count")
        }
    }

    /// The category must be declared, and a summary argument needs a `%@` in its summary format.
    private func checkCategory(
        _ content: NotificationContent, in document: JSONDocument, at prefix: Path, app: LintApp,
        categories: [String: NotificationCategory]?
    ) {
        guard let categories, !content.categoryIdentifier.isEmpty else { return }
        guard let category = categories[content.categoryIdentifier] else {
            let declared = categories.keys.sorted()
            document.report(
                .unknownCategory, at: prefix + [.key("aps"), .key("category")],
                "category `\(content.categoryIdentifier)` is not declared by \(app.name) "
                    + (declared.isEmpty ? "(it declares none)" : "(it declares \(declared.map { "`\($0)`" }.joined(separator: ", ")))")
                    + ": the push gets no summary format, placeholder or actions; send a declared category or declare this one")
            return
        }
        guard !content.summaryArgument.isEmpty, let format = category.categorySummaryFormat, !format.isEmpty else { return }
        let signature: FormatSignature
        switch format {
        case .plain(let text):
            signature = FormatSignature(format: text)
        case .localized(let key, _):
            let entry = developmentEntry(forKey: key, app: app) ?? .text(key)
            signature = FormatSignature(entry)
        }
        guard !signature.kinds.values.contains(where: { $0.contains(.object) }) else { return }
        let inAlert = document.json.value(at: prefix + [.key("aps"), .key("alert"), .key("summary-arg")]) != nil
        document.report(
            .unusedSummaryArg,
            at: prefix + (inAlert ? [.key("aps"), .key("alert"), .key("summary-arg")] : [.key("aps"), .key("summary-arg")]),
            "summary-arg \"\(content.summaryArgument)\" is never shown: the summary format of category `\(category.identifier)` (\"\(format.fallbackText)\") has no %@; add %@ to the format, or stop sending summary-arg")
    }

    /// Each `*-loc-key` must be in a catalog of the app, and its `*-loc-args` must fill its conversions.
    private func checkLocalizedTexts(
        _ json: JSONValue, content: NotificationContent, in document: JSONDocument, at prefix: Path, app: LintApp
    ) {
        let texts: [(keyField: String, argumentsField: String, text: LocalizableText?)] = [
            ("title-loc-key", "title-loc-args", content.title),
            ("subtitle-loc-key", "subtitle-loc-args", content.subtitle),
            ("loc-key", "loc-args", content.body),
        ]
        let bundle = bundle(for: app)
        guard !bundle.languages.isEmpty else { return }  // without catalogs there is nothing to look keys up in
        let alert: Path = prefix + [.key("aps"), .key("alert")]
        for (keyField, argumentsField, text) in texts {
            guard case .localized(let key, let arguments)? = text else { continue }
            guard let entry = developmentEntry(forKey: key, app: app) else {
                document.report(
                    .unknownLocKey, at: alert + [.key(keyField)],
                    "\(keyField) `\(key)` is in no catalog of \(app.name), so iOS shows `\(key)` itself: add it to the app's strings, or fix the key")
                continue
            }
            let needed = FormatSignature(entry).argumentCount
            guard arguments.count != needed else { continue }
            let hasArguments = json.value(at: alert + [.key(argumentsField)]) != nil
            let path = alert + [.key(hasArguments ? argumentsField : keyField)]
            let reads = "`\(key)` reads \(needed) argument\(needed == 1 ? "" : "s")"
            if arguments.count < needed {
                document.report(
                    .locArgsCount, at: path,
                    "\(reads) but \(argumentsField) has \(arguments.count): the missing ones show as nothing; send \(needed)")
            } else {
                document.report(
                    .locArgsCount, severity: .warning, at: path,
                    "\(reads) but \(argumentsField) has \(arguments.count): the extra ones are never shown; send \(needed), or use them in the string")
            }
        }
    }

    /// The entry for `key` in the app's development language, else in the first language that has it.
    private func developmentEntry(forKey key: String, app: LintApp) -> LocalizedEntry? {
        let bundle = bundle(for: app)
        if let entry = bundle.tables[bundle.developmentLanguage]?[key] { return entry }
        for language in bundle.languages {
            if let entry = bundle.tables[language]?[key] { return entry }
        }
        return nil
    }

    private func bundle(for app: LintApp) -> LocalizationBundle {
        bundles[app.bundleIdentifier ?? ""] ?? LocalizationBundle(developmentLanguage: "en")
    }
}

extension JSONValue {
    /// The value at a key path, if there is one.
    func value(at path: [JSONLocator.PathComponent]) -> JSONValue? {
        var current: JSONValue? = self
        for component in path {
            switch component {
            case .key(let key): current = current?[key]
            case .index(let index):
                guard let elements = current?.arrayValue, elements.indices.contains(index) else { return nil }
                current = elements[index]
            }
        }
        return current
    }
}
