import Foundation

extension InMemoryNotificationStore {
    public func saveSigningKey(_ key: SigningKeyRecord) {
        keys[key.keyID] = key
    }

    public func signingKey(id: String) -> SigningKeyRecord? {
        keys[id]
    }

    public func signingKeys() -> [SigningKeyRecord] {
        keys.values.sorted { $0.keyID < $1.keyID }
    }

    public func deleteSigningKey(id: String) -> Bool {
        keys.removeValue(forKey: id) != nil
    }

    public func saveServiceAccount(_ account: ServiceAccountRecord) {
        serviceAccountKeys[account.keyID] = account
    }

    public func serviceAccount(keyID: String) -> ServiceAccountRecord? {
        serviceAccountKeys[keyID]
    }

    public func serviceAccounts() -> [ServiceAccountRecord] {
        serviceAccountKeys.values.sorted { $0.keyID < $1.keyID }
    }

    public func deleteServiceAccount(keyID: String) -> Bool {
        serviceAccountKeys.removeValue(forKey: keyID) != nil
    }
}
