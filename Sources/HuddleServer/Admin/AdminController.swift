import Foundation
import HuddleAPNs
import HuddleCore
import HuddleFCM
import Hummingbird

/// The admin API: provider signing keys, and removing every device, behind the admin token.
struct AdminController {
    let store: any NotificationStore
    let centers: DeviceCenters
    let keys: SigningKeyCache
    let serviceAccounts: ServiceAccountCache
    let access: AdminAccess
    let clock: @Sendable () -> Date

    func addRoutes(to router: Router<HuddleRequestContext>) {
        let keys = router.group("/v1/admin/keys")
        keys.get(use: list)
        keys.put(":keyID", use: save)
        keys.delete(":keyID", use: delete)
        router.delete("/v1/admin/devices", use: removeDevices)
        let accounts = router.group("/v1/admin/service-accounts")
        accounts.get(use: listServiceAccounts)
        accounts.put(":keyID", use: saveServiceAccount)
        accounts.delete(":keyID", use: deleteServiceAccount)
    }

    @Sendable func listServiceAccounts(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        return .json(.array(try await store.serviceAccounts().map(Self.json)))
    }

    /// Registers a service account's key (FCM): `{"project": "…", "clientEmail": "…", "publicKey": "-----BEGIN PUBLIC KEY-----…"}`,
    /// under the key's id (the JSON key file's `private_key_id`). `huddle fcm service-account` makes the key and calls this.
    @Sendable func saveServiceAccount(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        let keyID = try context.parameters.require("keyID")
        let isKeyIDByte: (UInt8) -> Bool = { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
        guard !keyID.isEmpty, keyID.utf8.count <= 128, keyID.utf8.allSatisfy(isKeyIDByte) else {
            throw APIError(.badRequest, "a key id is 1 to 128 letters, digits, '-' or '_'")
        }
        let body = try await request.jsonBody(limit: 16 * 1024)
        try body.rejectUnknownMembers(["project", "clientEmail", "publicKey"])
        let projectMember = try body.member("project")
        let project = try projectMember.string()
        guard FirebaseInstallation.isValidProjectID(project) else {
            throw projectMember.failure("a Firebase project id is 1 to 100 letters, digits, '-', '_' or '.'")
        }
        let emailMember = try body.member("clientEmail")
        let clientEmail = try emailMember.string()
        guard clientEmail.contains("@"), clientEmail.utf8.count <= 320 else { throw emailMember.failure("expected the service account's email") }
        let publicKey = try body.member("publicKey").string()
        guard ServiceAccountKeys.isRSAPublicKey(publicKey) else {
            throw APIError(.badRequest, "publicKey: expected an RSA public key of 2048 bits or more, PEM (-----BEGIN PUBLIC KEY-----)")
        }
        let account = ServiceAccountRecord(keyID: keyID, project: project, clientEmail: clientEmail, publicKeyPEM: publicKey, createdAt: clock())
        try await store.saveServiceAccount(account)
        serviceAccounts.forget(id: keyID)
        return .json(Self.json(account))
    }

    @Sendable func deleteServiceAccount(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        let keyID = try context.parameters.require("keyID")
        defer { serviceAccounts.forget(id: keyID) }
        guard try await store.deleteServiceAccount(keyID: keyID) else { throw APIError(.notFound, "no such service account key") }
        return Response(status: .noContent)
    }

    static func json(_ account: ServiceAccountRecord) -> JSONValue {
        .object(JSONObject([
            ("keyID", .string(account.keyID)), ("project", .string(account.project)), ("clientEmail", .string(account.clientEmail)),
            ("publicKey", .string(account.publicKeyPEM)), ("createdAt", .string(ISO8601.string(from: account.createdAt))),
        ]))
    }

    /// `DELETE /v1/admin/devices`: removes every device, so that a test suite starts from an empty server;
    /// pushes to their tokens are answered `Unregistered` from then on, as for any deleted device.
    /// - Returns: `{"removed": <count>}`.
    @Sendable func removeDevices(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        // The devices there now, however many register meanwhile (those are the next test's): the loop is
        // bounded by the count at the start.
        let present = try await store.deviceCount()
        var removed = 0
        var pages = 0
        while removed < present, pages <= present / 500 {
            pages += 1
            let devices = try await store.devices(newestFirst: 500)
            var removedNow = 0
            for device in devices where try await store.deleteDevice(token: device.token, at: clock()) {
                centers.forget(device.token)
                removedNow += 1
            }
            removed += removedNow
            // A page that removed nothing was removed by someone else meanwhile: what is left is theirs to end.
            if removedNow == 0 { break }
        }
        return .json(["removed": .integer(Int64(removed))])
    }

    @Sendable func list(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        return .json(.array(try await store.signingKeys().map(Self.json)))
    }

    /// Registers a key: `{"teamID": "…", "publicKey": "-----BEGIN PUBLIC KEY-----…", "topics": ["…"]}`.
    @Sendable func save(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        let keyID = try context.parameters.require("keyID")
        let body = try await request.jsonBody()
        try body.rejectUnknownMembers(["teamID", "publicKey", "topics", "environments"])
        var environments = Set(APNsEnvironment.allCases)
        if let member = try body.optionalMember("environments") {
            environments = Set(try member.array().map { element throws(JSONReadError) in try element.apnsEnvironment() })
            guard !environments.isEmpty else { throw member.failure("a key must be usable in one environment at least") }
        }
        let key: SigningKeyRecord
        do {
            key = SigningKeyRecord(
                keyID: keyID, teamID: try body.member("teamID").string(),
                publicKeyPEM: try SigningKeys.publicKeyPEM(from: try body.member("publicKey").string()),
                topics: try body.optionalMember("topics")?.array().map { element throws(JSONReadError) in try element.string() } ?? [],
                createdAt: clock(), environments: environments)
            try SigningKeys.validate(key)
        } catch let error as SigningKeyError {
            throw APIError(.badRequest, error.description)
        }
        try await store.saveSigningKey(key)
        keys.forget(id: keyID)
        return .json(Self.json(key))
    }

    @Sendable func delete(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        let keyID = try context.parameters.require("keyID")
        // Forgotten whatever the answer: a key the store no longer has must not go on working from here.
        defer { keys.forget(id: keyID) }
        guard try await store.deleteSigningKey(id: keyID) else {
            throw APIError(.notFound, "no such key")
        }
        return Response(status: .noContent)
    }

    static func json(_ key: SigningKeyRecord) -> JSONValue {
        .object(JSONObject([
            ("keyID", .string(key.keyID)), ("teamID", .string(key.teamID)), ("publicKey", .string(key.publicKeyPEM)),
            ("topics", .array(key.topics.map(JSONValue.string))), ("createdAt", .string(ISO8601.string(from: key.createdAt))),
            ("environments", .array(key.environments.sorted().map { .string($0.rawValue) })),
        ]))
    }
}
