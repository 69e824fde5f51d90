import Crypto
import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import HuddleLocalization
import Hummingbird
import Logging

/// The device API (JSON over HTTP, the device secret as a bearer token): register a device, install its
/// apps, read its rendered center, remove and clear, post local notifications. Documented in
/// `docs/openapi.yaml`.
struct DeviceController {
    let centers: DeviceCenters
    let store: any NotificationStore
    let clock: @Sendable () -> Date

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.post("/v1/devices", use: register)
        let device = router.group("/v1/devices/:token")
        device.get(use: describe)
        device.delete(use: unregister)
        device.get("center", use: center)
        device.post("notifications/remove", use: removeNotifications)
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
        var name = "Huddle device"
        if request.headers[.contentLength].map({ $0 != "0" }) ?? false {
            let body = try await request.jsonBody()
            try body.rejectUnknownMembers(["name"])
            name = try body.optionalMember("name")?.string() ?? name
        }
        let token = Self.randomHex(bytes: 32)
        let secret = Self.randomHex(bytes: 32)
        try await store.createDevice(DeviceRecord(token: token, secretHash: Self.hash(secret), name: name, createdAt: clock()))
        return .json(["token": .string(token), "secret": .string(secret), "name": .string(name)], status: .created)
    }

    @Sendable func describe(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        let apps = try await store.apps(device: device.token)
        return .json(.object(JSONObject([
            ("token", .string(device.token)), ("name", .string(device.name)),
            ("createdAt", .string(ISO8601.string(from: device.createdAt))),
            ("apps", .array(apps.map { .string($0.topic) })),
        ])))
    }

    @Sendable func unregister(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        _ = try await store.deleteDevice(token: device.token)
        await centers.forget(device.token)
        return Response(status: .noContent)
    }

    // MARK: The center

    @Sendable func center(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let languages = request.uri.queryParameters["languages"].map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        } ?? ["en"]
        let locked = try Self.flag(request.uri.queryParameters["locked"], name: "locked")
        var options = RenderOptions()
        if let limit = request.uri.queryParameters["limit"] {
            guard let value = Int(limit), value > 0 else { throw APIError(.badRequest, "limit: expected a positive integer, found \"\(limit)\"") }
            options.notificationLimit = value
        }
        let rendered = await session.live.render(for: Viewer(languages: languages, locked: locked), options: options)
        for diagnostic in rendered.diagnostics { context.logger.warning("\(diagnostic)") }
        return .json(rendered.json)
    }

    @Sendable func removeNotifications(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let body = try await request.jsonBody()
        try body.rejectUnknownMembers(["app", "ids"])
        let app = try body.member("app").string()
        let identifiers = try body.member("ids").array().map { element throws(JSONReadError) in try element.string() }
        try await requireApp(app, session)
        let removals = try await session.remove(app: app, identifiers: identifiers)
        return .json(["removed": .array(removals.map { .string($0.notification.identifier) })])
    }

    @Sendable func clearGroup(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let text = try context.parameters.require("group")
        guard let group = GroupID(text.removingPercentEncoding ?? text) else { throw APIError(.badRequest, "\"\(text)\" is not a group id") }
        try await requireApp(group.app, session)
        let removals = try await session.remove(group: group)
        return .json(["removed": .array(removals.map { .string($0.notification.identifier) })])
    }

    // MARK: Apps

    @Sendable func listApps(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        return .json(.array(try await store.apps(device: device.token).map(Self.json)))
    }

    @Sendable func saveApp(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        let body = try await request.jsonBody()
        try body.rejectUnknownMembers(["developmentLanguage", "settings", "categories"])
        var app = try await store.apps(device: device.token).first { $0.topic == topic } ?? AppRecord(topic: topic)
        app.developmentLanguage = try body.optionalMember("developmentLanguage")?.string() ?? app.developmentLanguage
        if let settings = try body.optionalMember("settings") { try app.settings.update(json: settings) }
        if let categories = try body.optionalMember("categories") {
            app.categories = try categories.array().map { element throws(JSONReadError) in try NotificationCategory(json: element) }
        }
        try await save(app, session)
        return .json(Self.json(app))
    }

    @Sendable func deleteApp(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        guard try await store.deleteApp(topic: topic, device: device.token) else { throw APIError(.notFound, "no app \(topic)") }
        // The center reloads without the app.
        await centers.forget(device.token)
        return Response(status: .noContent)
    }

    @Sendable func updateSettings(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        var app = try await existingApp(try context.parameters.require("topic"), device: device)
        try app.settings.update(json: try await request.jsonBody())
        try await save(app, session)
        return .json(app.settings.json)
    }

    @Sendable func setCategories(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        var app = try await existingApp(try context.parameters.require("topic"), device: device)
        app.categories = try await request.jsonBody().array().map { element throws(JSONReadError) in try NotificationCategory(json: element) }
        try await save(app, session)
        return .json(.array(app.categories.map(\.json)))
    }

    @Sendable func uploadLocalization(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        var app = try await existingApp(try context.parameters.require("topic"), device: device)
        let path = try Self.localizationPath(context)
        let data = Data(try await request.collectBody(limit: 4 << 20).readableBytesView)
        app.localizationFiles[path] = data
        try await save(app, session)
        return Response(status: .noContent)
    }

    @Sendable func deleteLocalization(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await authorize(request, context)
        var app = try await existingApp(try context.parameters.require("topic"), device: device)
        let path = try Self.localizationPath(context)
        guard app.localizationFiles.removeValue(forKey: path) != nil else { throw APIError(.notFound, "no file \(path)") }
        try await save(app, session)
        return Response(status: .noContent)
    }

    // MARK: Notifications of an app

    /// `UNUserNotificationCenter.add`: a local notification, content by Apple's property names.
    @Sendable func addLocalNotification(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        try await requireApp(topic, session)
        let body = try await request.jsonBody()
        try body.rejectUnknownMembers(["id", "content"])
        let identifier = try body.optionalMember("id")?.string() ?? UUID().uuidString.lowercased()
        let content = try NotificationContent(json: try body.member("content"))
        guard let delivery = try await session.deliver(NotificationRequest(identifier: identifier, content: content), app: topic, at: clock()) else {
            throw APIError(.badRequest, "content: a notification needs a title, subtitle or body to be shown")
        }
        return .json(["id": .string(identifier), "group": .string(delivery.group.description)], status: .created)
    }

    /// `getDeliveredNotifications`: the app's notifications newest first, as stored (texts unresolved).
    @Sendable func listNotifications(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await authorize(request, context)
        let topic = try context.parameters.require("topic")
        try await requireApp(topic, session)
        let notifications = await session.live.center.deliveredNotifications(app: topic)
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
        let removals = try await session.removeAll(app: topic)
        return .json(["removed": .array(removals.map { .string($0.notification.identifier) })])
    }

    // MARK: Helpers

    /// The device named in the path, if the request carries its secret.
    private func authorize(_ request: Request, _ context: HuddleRequestContext) async throws -> (DeviceRecord, DeviceSession) {
        let token = try context.parameters.require("token").lowercased()
        guard let authorization = request.headers[.authorization],
            authorization.lowercased().hasPrefix("bearer ")
        else { throw APIError(.unauthorized, "send the device secret as Authorization: Bearer <secret>") }
        let secret = String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard let device = try await store.device(token: token), Self.constantTimeEqual(Self.hash(secret), device.secretHash),
            let session = try await centers.session(for: token)
        else { throw APIError(.unauthorized, "unknown device or wrong secret") }
        return (device, session)
    }

    private func requireApp(_ topic: String, _ session: DeviceSession) async throws {
        guard await session.live.center.registration(for: topic) != nil else {
            throw APIError(.notFound, "the device has no app \(topic); install it with PUT /v1/devices/{token}/apps/\(topic)")
        }
    }

    private func existingApp(_ topic: String, device: DeviceRecord) async throws -> AppRecord {
        guard let app = try await store.apps(device: device.token).first(where: { $0.topic == topic }) else {
            throw APIError(.notFound, "the device has no app \(topic)")
        }
        return app
    }

    private func save(_ app: AppRecord, _ session: DeviceSession) async throws {
        guard ProviderRequestCheck.isValidTopic(app.topic) else { throw APIError(.badRequest, "\"\(app.topic)\" is not a bundle identifier") }
        do {
            try await session.save(app)
        } catch let error as CenterError {
            throw APIError(.badRequest, error.description)
        } catch let error as CatalogError {
            throw APIError(.badRequest, error.description)
        }
    }

    private static func localizationPath(_ context: HuddleRequestContext) throws -> String {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        let name = path.lowercased()
        guard !path.isEmpty, !path.split(separator: "/").contains(".."),
            name.hasSuffix(".strings") || name.hasSuffix(".stringsdict") || name.hasSuffix(".xcstrings")
        else { throw APIError(.badRequest, "a localization file is a <lang>.lproj/NAME.strings, .stringsdict or NAME.xcstrings path") }
        return path
    }

    static func json(_ app: AppRecord) -> JSONValue {
        .object(JSONObject([
            ("topic", .string(app.topic)), ("developmentLanguage", .string(app.developmentLanguage)),
            ("settings", app.settings.json), ("categories", .array(app.categories.map(\.json))),
            ("localizations", .array(app.localizationFiles.keys.sorted().map(JSONValue.string))),
        ]))
    }

    static func flag(_ value: Substring?, name: String) throws -> Bool {
        switch value {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        case let other?: throw APIError(.badRequest, "\(name): expected true or false, found \"\(other)\"")
        }
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func hash(_ secret: String) -> String {
        hex(Array(SHA256.hash(data: Data(secret.utf8))))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
