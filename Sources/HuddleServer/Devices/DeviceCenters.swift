import HuddleCore

/// The centers of the devices a server has seen, loaded from the store on first use and kept in memory,
/// so that reading a center renders from running totals instead of scanning stored notifications.
actor DeviceCenters {
    let store: any NotificationStore
    private var sessions: [String: DeviceSession] = [:]
    private var loading: [String: Task<DeviceSession?, any Error>] = [:]

    init(store: any NotificationStore) {
        self.store = store
    }

    /// A device's session, or `nil` for a token the store does not know.
    func session(for token: String) async throws -> DeviceSession? {
        if let session = sessions[token] { return session }
        // Concurrent first requests for one device share a single load.
        let task = loading[token] ?? Task { [store] in try await DeviceSession.load(token: token, store: store) }
        loading[token] = task
        defer { loading[token] = nil }
        let session = try await task.value
        if let session, sessions[token] == nil { sessions[token] = session }
        return sessions[token] ?? session
    }

    /// Forgets a device (after it was deleted).
    func forget(_ token: String) {
        sessions[token] = nil
    }
}
