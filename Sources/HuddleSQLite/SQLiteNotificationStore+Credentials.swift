import Foundation
import GRDB
public import HuddleCore

extension SQLiteNotificationStore {
    public func saveSigningKey(_ key: SigningKeyRecord) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO signing_keys (key_id, team_id, public_key, topics, created_at, environments) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (key_id) DO UPDATE SET team_id = excluded.team_id, public_key = excluded.public_key,
                        topics = excluded.topics, created_at = excluded.created_at, environments = excluded.environments
                    """,
                arguments: [
                    key.keyID, key.teamID, key.publicKeyPEM, RowCodec.topicsText(key),
                    key.createdAt.milliseconds, RowCodec.environmentsText(key),
                ])
        }
    }

    public func signingKey(id: String) async throws -> SigningKeyRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM signing_keys WHERE key_id = ?", arguments: [id]).map(Self.signingKey)
        }
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM signing_keys ORDER BY key_id").map(Self.signingKey)
        }
    }

    public func deleteSigningKey(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM signing_keys WHERE key_id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func saveServiceAccount(_ account: ServiceAccountRecord) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO service_accounts (key_id, project, client_email, public_key, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (key_id) DO UPDATE SET project = excluded.project, client_email = excluded.client_email,
                        public_key = excluded.public_key, created_at = excluded.created_at
                    """,
                arguments: [account.keyID, account.project, account.clientEmail, account.publicKeyPEM, account.createdAt.milliseconds])
        }
    }

    public func serviceAccount(keyID: String) async throws -> ServiceAccountRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM service_accounts WHERE key_id = ?", arguments: [keyID]).map(Self.serviceAccount)
        }
    }

    public func serviceAccounts() async throws -> [ServiceAccountRecord] {
        try await read { db in try Row.fetchAll(db, sql: "SELECT * FROM service_accounts ORDER BY key_id").map(Self.serviceAccount) }
    }

    public func deleteServiceAccount(keyID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM service_accounts WHERE key_id = ?", arguments: [keyID])
            return db.changesCount > 0
        }
    }

    static func serviceAccount(_ row: Row) -> ServiceAccountRecord {
        ServiceAccountRecord(
            keyID: row["key_id"], project: row["project"], clientEmail: row["client_email"], publicKeyPEM: row["public_key"],
            createdAt: Date(milliseconds: row["created_at"]))
    }

    static func signingKey(_ row: Row) throws -> SigningKeyRecord {
        try RowCodec.signingKey(
            keyID: row["key_id"], teamID: row["team_id"], publicKeyPEM: row["public_key"], topicsText: row["topics"],
            createdAt: row["created_at"], environmentsText: row["environments"])
    }
}
