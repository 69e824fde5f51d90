import Crypto
import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import HuddleExpo
import HuddleLocalization
import Hummingbird
import Logging
import NIOCore

/// The device API (JSON over HTTP, the device secret as a bearer token): register a device, install its
/// apps, read its rendered center, remove and clear, post local notifications. Documented in
/// `Resources/openapi.yaml` (served at `/openapi.yaml`).
struct DeviceController {
    let centers: DeviceCenters
    let store: any NotificationStore
    let clock: @Sendable () -> Date
    /// The bearer token registration needs, if any.
    let registrationToken: String?
    /// Where wrong registration tokens are counted, with the server's other tokens.
    let attempts: SignInAttempts
    let limits: ServerConfiguration.Limits
    /// The server's live streams: a read that waits holds one as a stream does, so that waits are bounded.
    let slots: StreamSlots

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.post("/v1/devices", use: register)
        let device = router.group("/v1/devices/:token")
        device.get(use: describe)
        device.delete(use: unregister)
        device.get("center", use: center)
        device.get("events", use: events)
        device.get("settings", use: deviceSettings)
        device.patch("settings", use: updateDeviceSettings)
        device.post("summary", use: deliverSummary)
        device.get("activities", use: activities)
        device.post("activities", use: requestActivity)
        device.delete("activities/:id", use: dismissActivity)
        device.post("notifications/remove", use: removeNotifications)
        device.delete("notifications", use: clearAll)
        device.delete("groups/:group", use: clearGroup)
        device.get("apps", use: listApps)
        device.put("apps/:topic", use: saveApp)
        device.delete("apps/:topic", use: deleteApp)
        device.patch("apps/:topic/settings", use: updateSettings)
        device.put("apps/:topic/categories", use: setCategories)
        device.put("apps/:topic/localizations/**", use: uploadLocalization)
        device.delete("apps/:topic/localizations/**", use: deleteLocalization)
        device.post("apps/:topic/notifications", use: addLocalNotification)
        device.get("apps/:topic/notifications", use: listNotifications)
        device.delete("apps/:topic/notifications", use: clearApp)
    }

    // MARK: Devices

    @Sendable func register(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        if let registrationToken, try await !attempts.verify(Secrets.bearer(request), is: registrationToken, kind: .registration, client: context.clientAddress) {
            throw APIError(
                .unauthorized, "registering a device on this server needs its registration token: send Authorization: Bearer <token>")
        }
        var name = DeviceRegistration.defaultName
        var environment = APNsEnvironment.development
        var kind = DeviceKind.iPhone
        // A name, an environment and a platform are all a registration says: anyone may call this, so it reads little.
        if let body = try await request.optionalJSONBody(limit: 4096) {
            try body.rejectUnknownMembers(["name", "environment", "platform", "androidVersion"])
            name = try body.optionalMember("name")?.string() ?? name
            try DisplayText.checkName(name, field: "name")
            environment = try body.optionalMember("environment")?.apnsEnvironment() ?? environment
            kind = try DeviceKind(in: body)
        }
        let (device, secret) = try await DeviceRegistration(store: store, clock: clock, maximumDevices: limits.devices)
            .register(name: name, environment: environment, kind: kind)
        var answer = JSONObject([
            ("token", .string(device.token)), ("secret", .string(secret)), ("name", .string(name)), ("environment", .string(environment.rawValue)),
        ])
        Self.describe(kind, in: &answer)
        return .json(.object(answer), status: .created)
    }

    /// A device's kind as the API shows it: `platform`, and `androidVersion` for an Android phone.
    static func describe(_ kind: DeviceKind, in object: inout JSONObject) {
        object["platform"] = .string(kind.name)
        object["androidVersion"] = kind.androidVersion.map { .integer(Int64($0)) }
    }

    @Sendable func describe(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        let apps = try await store.apps(device: device.token)
        var answer = JSONObject([
            ("token", .string(device.token)), ("name", .string(device.name)),
            ("createdAt", .string(ISO8601.string(from: device.createdAt))), ("environment", .string(device.environment.rawValue)),
        ])
        Self.describe(device.kind, in: &answer)
        answer["apps"] = .array(apps.map { .string($0.topic) })
        return .json(.object(answer))
    }

    @Sendable func unregister(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        _ = try await store.deleteDevice(token: device.token, at: clock())
        centers.forget(device.token)
        return Response(status: .noContent)
    }

    // MARK: The center

    /// `GET …/center`; with `wait=<seconds>` and `notifications=<n>` or `change=<number>`, answers once the
    /// center holds at least `n` notifications or has reached that change, or when the time is up, saying
    /// which in `Huddle-Wait: met` or `timed-out`: an assertion in CI that waits instead of sleeping.
    /// `GET /v1/devices/{token}/events?limit=`: what the device did with the pushes that showed nothing
    /// (woke an app, handed it a call, reloaded widgets…), newest first.
    @Sendable func events(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let limit = try request.number("limit", in: 1...DeviceEvent.keptPerDevice) ?? DeviceEvent.keptPerDevice
        let events = await session.events(limit: limit)
        return .json(["events": .array(events.map { $0.event.json(number: $0.number) })])
    }

    /// `GET /v1/devices/{token}/activities`: what an app's ActivityKit would give it, its push-to-start
    /// tokens (one per declared type), and the Live Activities on the device as its Lock Screen shows them now,
    /// each with its update token.
    @Sendable func activities(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        // The declarations from the session's center: no app's strings are read for them.
        let declared = await session.read { center in
            center.registeredApps.compactMap { center.registration(for: $0) }.map { ($0.bundleIdentifier, $0.liveActivities.types.map(\.name)) }
        }
        let pushToStart = declared.flatMap { app, types in
            types.map { type in
                JSONValue.object(JSONObject([
                    ("app", .string(app)), ("type", .string(type)),
                    ("token", .string(LiveActivityTokens.pushToStart(device: device.token, app: app, type: type))),
                ]))
            }
        }
        let activities = await session.activities(at: clock())
        return .json(.object(JSONObject([("pushToStartTokens", .array(pushToStart)), ("activities", .array(activities.map(\.json)))])))
    }

    /// `POST /v1/devices/{token}/activities`: the app starts a Live Activity itself, as
    /// `Activity.request(attributes:content:pushType:)` does: `{"app", "type", "attributes", "contentState",
    /// "pushType": null | "token" | {"channel": "<id>"}, "staleDate", "relevanceScore"}`. The same rules as a
    /// push-to-start apply (declared types, limits); what iOS would throw is answered 400 or 409.
    @Sendable func requestActivity(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        let body = try await request.jsonBody(limit: ActivityPush.maximumSize)
        let now = clock()
        let app: String
        var push: ActivityPush
        do {
            try body.rejectUnknownMembers(["app", "type", "attributes", "contentState", "pushType", "staleDate", "relevanceScore"])
            app = try body.member("app").string()
            push = ActivityPush(
                event: .start, timestamp: now, contentState: .object(try body.member("contentState").object()),
                attributesType: try body.member("type").string(), attributes: .object(try body.optionalMember("attributes")?.object() ?? JSONObject()),
                relevanceScore: try body.optionalMember("relevanceScore")?.number())
            if let score = push.relevanceScore, !score.isFinite { throw try body.member("relevanceScore").failure("must be a finite number") }
            if let stale = try body.optionalMember("staleDate") {
                guard let date = ISO8601.date(from: try stale.string()) else { throw stale.failure("expected an ISO 8601 date") }
                push.staleDate = date
            }
            switch try body.optionalMember("pushType").map({ reader throws(JSONReadError) in reader.value }) {
            case nil, .null?: break
            case .string("token")?: push.inputPushToken = true
            case .object?:
                let channel = try body.member("pushType").member("channel")
                guard BroadcastChannel.isWellFormedID(try channel.string()) else { throw channel.failure("expected a channel identifier (base64)") }
                push.inputPushChannel = try channel.string()
            default:
                throw try body.member("pushType").failure("expected null, \"token\" or {\"channel\": \"<id>\"}")
            }
        } catch {
            throw APIError(.badRequest, "\(error)")
        }
        try await requireApp(app, session)
        let identity = NewActivityIdentity(id: UUID.randomLowercasedString(), updateToken: LiveActivityTokens.newUpdateToken(device: device.token, app: app))
        _ = try await session.updateActivities(app: app) { [push] activities, declarations in
            var activitiesOfDevice = DeviceActivities(activities: activities)
            let result = activitiesOfDevice.apply(
                push, to: .pushToStart(app: app, typeName: push.attributesType ?? ""), priority: 10, declarations: declarations, at: now,
                newActivity: identity)
            switch result.outcome {
            case .started: break
            case .dropped(.tooManyActivities), .dropped(.tooManyActivitiesOnDevice): throw APIError(.conflict, result.summary)
            default: throw APIError(.badRequest, result.summary)
            }
            activities = activitiesOfDevice.activities
            // The app's doing, not a push's: no event (the activities change says it).
            return nil
        }
        if let channel = push.inputPushChannel {
            try await ChannelBroadcast.catchUp(session, app: app, channel: channel, environment: device.environment, store: store, now: now)
        }
        guard let started = await session.activities(at: clock()).first(where: { $0.id == identity.id }) else {
            throw APIError(.conflict, "the activity ended at once")
        }
        return .json(started.json, status: .created)
    }

    /// `DELETE /v1/devices/{token}/activities/{id}`: the person removes an activity from the Lock Screen.
    @Sendable func dismissActivity(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let id = try context.parameters.require("id")
        let now = clock()
        guard let app = await session.activities(at: now).first(where: { $0.id == id })?.app else {
            throw APIError(.notFound, "no Live Activity \(id) on the device")
        }
        do {
            _ = try await session.updateActivities(app: app) { activities, _ in
                var device = DeviceActivities(activities: activities)
                guard device.dismiss(id: id, at: now) != nil else { throw APIError(.notFound, "no Live Activity \(id) on the device") }
                activities = device.activities
                // A person's doing, not a push's: no event (the activities change says it).
                return nil
            }
        } catch DeliveryRefusal.unknownApp {
            throw APIError(.notFound, "no Live Activity \(id) on the device")
        }
        return Response(status: .noContent)
    }

    @Sendable func center(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let view = CenterView(viewer: try request.viewer(), format: .json, notificationLimit: try request.notificationLimit())
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let wait = try request.waitDuration() {
            let notifications = try request.number("notifications", in: 0...Int.max)
            let change = try request.number("change", in: 0...Int.max).map(UInt64.init)
            guard notifications != nil || change != nil else {
                throw APIError(.badRequest, "wait: say what to wait for, with notifications=<count> or change=<number>")
            }
            let slot = try slots.open(device: session.token)
            defer { withExtendedLifetime(slot) {} }
            let met = await session.wait(within: wait, whileOpen: context.channel) { center, applied in
                (notifications.map { center.notificationCount >= $0 } ?? true) && (change.map { applied >= $0 } ?? true)
            }
            headers[HTTPField.Name("Huddle-Wait")!] = met ? "met" : "timed-out"
        }
        if let content = await session.shade(for: view.viewer) {
            // Android's shade, from the same notifications and the apps' channels (docs/fcm.md, "Android's shade").
            return .json(content.shade.json, headers: headers)
        }
        // The cached document itself, then the line break every JSON answer ends with: nothing is copied.
        let document = await session.document(view)
        return Response(status: .ok, headers: headers, body: ResponseBody(contentsOf: [document, ByteBuffer(string: "\n")]))
    }


    @Sendable func removeNotifications(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let body = try await request.jsonBody()
        try body.rejectUnknownMembers(["app", "ids"])
        let app = try body.member("app").string()
        let identifiers = try body.member("ids").array().map { element throws(JSONReadError) in try element.string() }
        try await requireApp(app, session)
        let removed = try await session.remove(app: app, identifiers: identifiers)
        return .json(["removed": .array(removed.map(JSONValue.string))])
    }

    @Sendable func clearGroup(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let text = try context.parameters.require("group")
        guard let group = GroupID(text.removingPercentEncoding ?? text) else { throw APIError(.badRequest, "\"\(text)\" is not a group id") }
        try await requireApp(group.app, session)
        let removed = try await session.remove(group: group)
        return .json(["removed": .array(removed.map(JSONValue.string))])
    }

    /// Clears the whole center: every notification of every app.
    @Sendable func clearAll(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        var removed: [String] = []
        for app in await session.read({ $0.registeredApps }) {
            removed += try await session.removeAll(app: app)
        }
        return .json(["removed": .array(removed.map(JSONValue.string))])
    }

    // MARK: Apps

    @Sendable func listApps(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        return .json(.array(try await store.apps(device: device.token).map { Self.json($0) }))
    }

    @Sendable func saveApp(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        let body = try await request.jsonBody()
        try body.rejectUnknownMembers([
            "name", "developmentLanguage", "settings", "categories", "liveActivities", "capabilities", "firebaseProject", "channels", "defaultChannel",
            "expoProject",
        ])
        try Self.refuseForeignMembers(on: session.device.kind) { try body.optionalMember($0) != nil }
        let name = try body.optionalMember("name")?.string()
        if let name { try DisplayText.checkName(name, field: "name") }
        let developmentLanguage = try body.optionalMember("developmentLanguage")?.string()
        if let developmentLanguage {
            guard developmentLanguage.utf8.count <= 64 else { throw APIError(.badRequest, "developmentLanguage: at most 64 bytes (a language tag)") }
            if let problem = StorableText.problem(developmentLanguage) { throw APIError(.badRequest, "developmentLanguage: \(problem)") }
        }
        let settings = try body.optionalMember("settings")
        let categories = try body.optionalMember("categories")?.array().map { element throws(JSONReadError) in
            try NotificationCategory(json: element)
        }
        if let categories { try DeviceSession.validate(AppRecord(topic: topic, categories: categories)) }
        let liveActivities = try body.optionalMember("liveActivities").map { member throws(ActivityError) in try ActivityDeclarations(json: member) }
        let capabilities = try body.optionalMember("capabilities").map { member throws(JSONReadError) in try AppCapabilities(json: member) }
        // Read once here, so that a bad channel list is refused before the store is asked.
        var firebaseRead = FirebaseInstallation()
        try firebaseRead.update(json: body)
        let firebaseUpdate = firebaseRead
        let firebaseMembers = try ["firebaseProject", "channels", "defaultChannel", "expoProject"].filter { name throws(JSONReadError) in try body.optionalMember(name) != nil }
        let app = try await updateApp(topic, session, request) { current in
            var app = current ?? AppRecord(topic: topic)
            if let name { app.displayName = name.isEmpty ? nil : name }
            app.developmentLanguage = developmentLanguage ?? app.developmentLanguage
            if let settings { try app.settings.update(json: settings) }
            if let categories { app.categories = categories }
            if let liveActivities { app.activities = liveActivities }
            if let capabilities { app.capabilities = capabilities }
            if firebaseMembers.contains("firebaseProject") { app.firebase.project = firebaseUpdate.project }
            if firebaseMembers.contains("channels") { app.firebase.channels = firebaseUpdate.channels }
            if firebaseMembers.contains("defaultChannel") { app.firebase.defaultChannelID = firebaseUpdate.defaultChannelID }
            if firebaseMembers.contains("expoProject") { app.firebase.expoProject = firebaseUpdate.expoProject }
            return app
        }
        let tag = AppEntityTag.of(app)
        return .json(Self.json(app, tag: tag), headers: [.eTag: tag])
    }

    /// Refuses what belongs to another kind's apps (of the members `isGiven` says a request gives), naming the member
    /// and the device's platform.
    private static func refuseForeignMembers(on kind: DeviceKind, isGiven: (String) throws -> Bool) throws {
        for (member, meaning) in kind.foreignAppMembers where try isGiven(member) {
            throw APIError(.badRequest, "\(member): this device is \(kind.deviceDescription) (platform \(kind.name)), and \(meaning)")
        }
    }

    @Sendable func deleteApp(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        var precondition: AppPrecondition?
        if let required = try AppEntityTag.required(by: request) {
            precondition = { app in try AppEntityTag.check(required, against: app) }
        }
        guard try await session.deleteApp(topic: topic, precondition: precondition) else { throw APIError(.notFound, "no app \(topic)") }
        return Response(status: .noContent)
    }

    /// `GET …/settings`: the person's settings of the device (time zone, scheduled summary, Focus, Lock Screen layout).
    @Sendable func deviceSettings(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        return .json(await session.settings.json)
    }

    /// `PATCH …/settings`: changes the settings the body names (the others stay), decided against them as stored in
    /// the transaction that changes them; answers them as they are now.
    @Sendable func updateDeviceSettings(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let changes = try await request.jsonBody()
        let settings = try await session.updateSettings { stored in
            var settings = stored
            try settings.update(json: changes)
            return settings
        }
        return .json(settings.json)
    }

    /// `POST …/summary`: delivers the next scheduled summary now, before its time (what a developer waits for
    /// otherwise); answers the summaries delivered, none when nothing was held.
    @Sendable func deliverSummary(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let viewer = try request.viewer()
        let summaries = try await session.deliverSummaries(dueBy: nil)
        return .json(["summaries": .array(summaries.map { $0.rendered(languages: viewer.languages).json })])
    }

    @Sendable func updateSettings(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        let changes = try await request.jsonBody()
        let app = try await updateApp(topic, session, request) { current in
            var app = try Self.installed(current, topic)
            try app.settings.update(json: changes)
            return app
        }
        return .json(app.settings.json, headers: [.eTag: AppEntityTag.of(app)])
    }

    @Sendable func setCategories(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        try Self.refuseForeignMembers(on: session.device.kind) { $0 == "categories" }
        let categories = try await request.jsonBody().array().map { element throws(JSONReadError) in try NotificationCategory(json: element) }
        try DeviceSession.validate(AppRecord(topic: topic, categories: categories))
        let app = try await updateApp(topic, session, request) { current in
            var app = try Self.installed(current, topic)
            app.categories = categories
            return app
        }
        return .json(.array(app.categories.map(\.json)), headers: [.eTag: AppEntityTag.of(app)])
    }

    /// Stores one localization file: only that file changes, so uploads of different files at once all stay.
    @Sendable func uploadLocalization(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        let path = try Self.localizationPath(context)
        let limit = limits.localizationBytesPerApp
        let data: Data
        do {
            data = Data(try await request.collectBody(limit: limit).readableBytesView)
        } catch let error as APIError where error.kind == .contentTooLarge {
            throw APIError(.contentTooLarge, "the file is larger than \(limit) bytes, the most an app may upload (--max-localization-bytes)")
        }
        try DeviceSession.validate(AppRecord(topic: topic, localizationFiles: [path: data]))
        // Android's string resources, which the iPhone's loader leaves alone, are read here.
        if AndroidResourceSet.isResourcePath(path) {
            do {
                _ = try AndroidResourceSet(files: [path: data])
            } catch {
                throw APIError(.badRequest, error.description)
            }
        }
        // The app's other files are counted as they are when the file is stored.
        let app = try await updateApp(topic, session, request) { current in
            var app = try Self.installed(current, topic)
            let others = app.localizationFiles.filter { $0.key != path }.values.reduce(0) { $0 + $1.count }
            guard others + data.count <= limit else {
                throw APIError(
                    .contentTooLarge,
                    "the app's other localization files hold \(others) bytes, and with this file they would pass \(limit) bytes, the most an app may upload (--max-localization-bytes)")
            }
            app.localizationFiles[path] = data
            return app
        }
        return Response(status: .noContent, headers: [.eTag: AppEntityTag.of(app)])
    }

    @Sendable func deleteLocalization(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        let path = try Self.localizationPath(context)
        let app = try await updateApp(topic, session, request) { current in
            var app = try Self.installed(current, topic)
            guard app.localizationFiles.removeValue(forKey: path) != nil else { throw APIError(.notFound, "no file \(path)") }
            return app
        }
        return Response(status: .noContent, headers: [.eTag: AppEntityTag.of(app)])
    }

    // MARK: Notifications of an app

    /// `UNUserNotificationCenter.add`: a local notification, content by Apple's property names.
    @Sendable func addLocalNotification(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        try await requireApp(topic, session)
        // As small as a push: a notification is a notification, whichever way it arrives.
        let body = try await request.jsonBody(limit: Self.maximumLocalNotificationSize)
        try body.rejectUnknownMembers(["id", "content"])
        let identifier = try body.optionalMember("id")?.string() ?? UUID.randomLowercasedString()
        try DisplayText.checkIdentifier(identifier, field: "id")
        let content = try NotificationContent(json: try body.member("content"))
        guard try await session.deliver(NotificationRequest(identifier: identifier, content: content), app: topic, at: clock()) != nil else {
            throw APIError(.badRequest, "content: a notification needs a title, subtitle or body to be shown")
        }
        let group = await session.read { $0.groupID(for: content, identifier: identifier, app: topic) }
        return .json(["id": .string(identifier), "group": .string(group.description)], status: .created)
    }

    /// `getDeliveredNotifications`: the app's notifications newest first, as stored (texts unresolved).
    @Sendable func listNotifications(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        try await requireApp(topic, session)
        let notifications = await session.read { $0.deliveredNotifications(app: topic) }
        return .json(.array(notifications.map { notification in
            .object(JSONObject([
                ("id", .string(notification.identifier)), ("date", .string(ISO8601.string(from: notification.date))),
                ("content", notification.content.json),
            ]))
        }))
    }

    @Sendable func clearApp(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        try await requireApp(topic, session)
        let removed = try await session.removeAll(app: topic)
        return .json(["removed": .array(removed.map(JSONValue.string))])
    }

    // MARK: Helpers

    /// The largest local notification accepted, in bytes: the VoIP payload limit, the largest APNs has.
    static let maximumLocalNotificationSize = APNsPayload.maximumVoIPSize

    private func authorize(_ request: Request, _ context: HuddleRequestContext) async throws -> (DeviceRecord, DeviceSession) {
        try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
    }

    private func requireApp(_ topic: String, _ session: DeviceSession) async throws {
        guard try await session.knowsApp(topic) else {
            throw APIError(.notFound, "the device has no app \(topic); install it with PUT /v1/devices/{token}/apps/\(topic)")
        }
    }

    /// Changes an app through the device's session, in the store's transaction (see
    /// ``DeviceSession/updateApp(topic:maximumApps:_:)``), where the request's `If-Match` is checked too.
    private func updateApp(
        _ topic: String, _ session: DeviceSession, _ request: Request, _ update: @escaping AppUpdate
    ) async throws -> AppRecord {
        guard ProviderRequestCheck.isValidTopic(topic) else { throw APIError(.badRequest, "\"\(topic)\" is not a bundle identifier") }
        let required = try AppEntityTag.required(by: request)
        return try await session.updateApp(topic: topic, maximumApps: limits.appsPerDevice) { current in
            try AppEntityTag.check(required, against: current)
            return try update(current)
        }
    }

    /// The app as stored, for a change that needs it installed.
    private static func installed(_ app: AppRecord?, _ topic: String) throws -> AppRecord {
        guard let app else { throw APIError(.notFound, "the device has no app \(topic)") }
        return app
    }

    private static func localizationPath(_ context: HuddleRequestContext) throws -> String {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        let name = path.lowercased()
        guard !path.isEmpty, !path.split(separator: "/").contains(".."),
            name.hasSuffix(".strings") || name.hasSuffix(".stringsdict") || name.hasSuffix(".xcstrings") || AndroidResourceSet.isResourcePath(path)
        else {
            throw APIError(
                .badRequest,
                "a localization file is a <lang>.lproj/NAME.strings, .stringsdict or NAME.xcstrings path, or an Android values[-<lang>]/NAME.xml")
        }
        return path
    }

    /// An app as the API shows it; `tag` is its entity tag, when the caller has it already (it digests every file).
    static func json(_ app: AppRecord, tag: String? = nil) -> JSONValue {
        .object(JSONObject([
            ("topic", .string(app.topic)), ("name", app.displayName.map(JSONValue.string) ?? .null),
            ("developmentLanguage", .string(app.developmentLanguage)),
            ("settings", app.settings.json), ("categories", .array(app.categories.map(\.json))),
            ("localizations", .array(app.localizationFiles.keys.sorted().map(JSONValue.string))),
            ("liveActivities", app.activities.json), ("capabilities", app.capabilities.json),
            ("fcmToken", app.firebase.registrationToken.map(JSONValue.string) ?? .null),
            // The Firebase installation ID, which a message's `fid` names in place of the token.
            ("fid", app.firebase.registrationToken.flatMap(FirebaseInstallation.installationID(of:)).map { .string(String($0)) } ?? .null),
            ("firebaseProject", app.firebase.project.map(JSONValue.string) ?? .null), ("channels", .array(app.firebase.channels.map(\.json))),
            ("defaultChannel", app.firebase.defaultChannelID.map(JSONValue.string) ?? .null),
            // The Expo push token, which Expo's push API (`/--/api/v2/push/send`) takes, and the project it belongs to.
            ("expoPushToken", app.firebase.registrationToken.flatMap(FirebaseInstallation.installationID(of:)).map { .string(ExpoPushToken.token(installationID: $0)) } ?? .null),
            ("expoProject", .string(app.firebase.expoProject ?? ExpoPushToken.defaultProject)),
            ("etag", .string(tag ?? AppEntityTag.of(app))),
        ]))
    }
}

extension Request {
    /// Who looks, from the query: `languages` (comma-separated, most preferred first; English when absent)
    /// and `locked`.
    func viewer() throws -> Viewer {
        let languages = uri.queryParameters["languages"].map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        } ?? ["en"]
        let locked: Bool
        switch uri.queryParameters["locked"] {
        case nil, "false", "0": locked = false
        case "true", "1", "": locked = true
        case let other?: throw APIError(.badRequest, "locked: expected true or false, found \"\(other)\"")
        }
        return Viewer(languages: languages, locked: locked)
    }

    /// `limit`: at most this many notifications of each group; `nil` for all.
    func notificationLimit() throws -> Int? {
        guard let limit = uri.queryParameters["limit"] else { return nil }
        guard let value = Int(limit), value > 0 else { throw APIError(.badRequest, "limit: expected a positive integer, found \"\(limit)\"") }
        return value
    }
}
