import Foundation
public import HuddleCore
import Logging
import PostgresNIO

extension PostgresNotificationStore {
    public func saveSigningKey(_ key: SigningKeyRecord) async throws {
        let topics = RowCodec.topicsText(key)
        let environments = RowCodec.environmentsText(key)
        _ = try await client.rows(
            """
            INSERT INTO signing_keys (key_id, team_id, public_key, topics, created_at, environments)
            VALUES (\(key.keyID), \(key.teamID), \(key.publicKeyPEM), \(topics), \(key.createdAt.milliseconds), \(environments))
            ON CONFLICT (key_id) DO UPDATE SET team_id = excluded.team_id, public_key = excluded.public_key,
                topics = excluded.topics, created_at = excluded.created_at, environments = excluded.environments
            """, logger: logger) { _ in }
    }

    public func signingKey(id: String) async throws -> SigningKeyRecord? {
        try await client.rows(
            "SELECT key_id, team_id, public_key, topics, created_at, environments FROM signing_keys WHERE key_id = \(id)", logger: logger,
            Self.signingKey
        ).first
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await client.rows(
            "SELECT key_id, team_id, public_key, topics, created_at, environments FROM signing_keys ORDER BY key_id", logger: logger, Self.signingKey)
    }

    public func deleteSigningKey(id: String) async throws -> Bool {
        try await !client.rows("DELETE FROM signing_keys WHERE key_id = \(id) RETURNING key_id", logger: logger) { _ in }.isEmpty
    }

    public func saveServiceAccount(_ account: ServiceAccountRecord) async throws {
        _ = try await client.rows(
            """
            INSERT INTO service_accounts (key_id, project, client_email, public_key, created_at)
            VALUES (\(account.keyID), \(account.project), \(account.clientEmail), \(account.publicKeyPEM), \(account.createdAt.milliseconds))
            ON CONFLICT (key_id) DO UPDATE SET project = excluded.project, client_email = excluded.client_email,
                public_key = excluded.public_key, created_at = excluded.created_at
            """, logger: logger) { _ in }
    }

    public func serviceAccount(keyID: String) async throws -> ServiceAccountRecord? {
        try await client.rows(
            "SELECT key_id, project, client_email, public_key, created_at FROM service_accounts WHERE key_id = \(keyID)", logger: logger,
            Self.serviceAccount
        ).first
    }

    public func serviceAccounts() async throws -> [ServiceAccountRecord] {
        try await client.rows(
            "SELECT key_id, project, client_email, public_key, created_at FROM service_accounts ORDER BY key_id", logger: logger, Self.serviceAccount)
    }

    public func deleteServiceAccount(keyID: String) async throws -> Bool {
        try await !client.rows("DELETE FROM service_accounts WHERE key_id = \(keyID) RETURNING key_id", logger: logger) { _ in }.isEmpty
    }

    static func serviceAccount(_ row: PostgresRow) throws -> ServiceAccountRecord {
        let (keyID, project, clientEmail, publicKey, createdAt) = try row.decode((String, String, String, String, Int64).self)
        return ServiceAccountRecord(
            keyID: keyID, project: project, clientEmail: clientEmail, publicKeyPEM: publicKey, createdAt: Date(milliseconds: createdAt))
    }

    static func signingKey(_ row: PostgresRow) throws -> SigningKeyRecord {
        let (keyID, teamID, publicKey, topicsText, createdAt, environments) = try row.decode((String, String, String, String, Int64, String?).self)
        return try RowCodec.signingKey(
            keyID: keyID, teamID: teamID, publicKeyPEM: publicKey, topicsText: topicsText, createdAt: createdAt, environmentsText: environments)
    }
}
