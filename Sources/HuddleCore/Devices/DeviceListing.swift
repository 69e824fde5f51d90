/// A store that can list its devices, for the home page of a server whose viewer holds the admin token.
///
/// Apart from ``NotificationStore`` because the stores are owned elsewhere for now: a store lists its
/// devices once it conforms, and the home page says so when its store does not.
public protocol DeviceListing: Sendable {
    /// The newest devices first, at most `limit` of them.
    func devices(newestFirst limit: Int) async throws -> [DeviceRecord]
}
