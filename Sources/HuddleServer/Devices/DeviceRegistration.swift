import Foundation
import HuddleCore

/// Registering a device: what `POST /v1/devices` and the home page's button both do.
struct DeviceRegistration {
    let store: any NotificationStore
    let clock: @Sendable () -> Date
    /// The most devices the server keeps (`--max-devices`).
    let maximumDevices: Int

    /// What a device registered without a name is called.
    static let defaultName = "Huddle device"

    /// Creates a device with a new token and secret.
    /// - Returns: the device and its secret, which is stored only as a hash: this is the one time it is known.
    /// - Throws: ``StoreError`` `.full` when the server keeps the most devices it may (counted in the
    ///   store's transaction, so racing registrations cannot pass the limit); ``APIError`` `badRequest` for a name no
    ///   store keeps.
    func register(
        name: String, environment: APNsEnvironment = .development, kind: DeviceKind = .iPhone
    ) async throws -> (device: DeviceRecord, secret: String) {
        if let problem = StorableText.problem(name) { throw APIError(.badRequest, "name: \(problem)") }
        let token = Secrets.randomHex(bytes: 32)
        let secret = Secrets.randomHex(bytes: 32)
        let device = DeviceRecord(
            token: token, secretHash: Secrets.hash(secret), name: name, createdAt: clock(), environment: environment, kind: kind)
        try await store.createDevice(device, maximumDevices: maximumDevices)
        return (device, secret)
    }
}
