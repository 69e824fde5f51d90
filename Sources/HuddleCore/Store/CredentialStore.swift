/// The keys senders sign with: APNs signing keys and FCM service accounts. One of the protocols ``NotificationStore`` joins.
public protocol CredentialStore: Sendable {
    /// Creates or replaces a signing key.
    func saveSigningKey(_ key: SigningKeyRecord) async throws
    func signingKey(id: String) async throws -> SigningKeyRecord?
    func signingKeys() async throws -> [SigningKeyRecord]
    func deleteSigningKey(id: String) async throws -> Bool
    /// Creates or replaces a service account's key.
    func saveServiceAccount(_ account: ServiceAccountRecord) async throws
    func serviceAccount(keyID: String) async throws -> ServiceAccountRecord?
    func serviceAccounts() async throws -> [ServiceAccountRecord]
    func deleteServiceAccount(keyID: String) async throws -> Bool
}
