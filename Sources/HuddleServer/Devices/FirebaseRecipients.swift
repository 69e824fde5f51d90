import HuddleCore

/// The apps that FCM registration tokens and Firebase installation IDs name, as senders find them: FCM's
/// `messages:send` (by token or `fid`) and Expo's push API (an Expo token is an installation ID in brackets). Each token or
/// ID seen is remembered with where it was installed (it is given to one app once and never moves), and checked against
/// the device's session in memory, which knows whether its app is still there and with which token; one not seen, or
/// whose session says otherwise, is read from the store.
struct FirebaseRecipients: Sendable {
    /// An app that a token or an installation ID names, with its device's session.
    struct Recipient: Sendable {
        var session: DeviceSession
        var app: String
        var installation: FirebaseInstallation
        var device: DeviceRecord { session.device }
    }

    let centers: DeviceCenters
    let store: any NotificationStore
    /// Where each registration token and installation ID seen was installed (the two never look alike: a token has a
    /// colon, an ID none).
    let places = TokenPlaces()

    /// The app a registration token names.
    func recipient(registrationToken token: String) async throws -> Recipient? {
        if let known = try await known(token, matches: { $0.registrationToken == token }) { return known }
        guard let found = try await store.firebaseRecipient(registrationToken: token) else { return nil }
        places.remember(token, device: found.device.token, app: found.app)
        return try await recipient(found)
    }

    /// The app an installation ID names: the one whose registration token begins with it.
    func recipient(installationID id: String) async throws -> Recipient? {
        if let known = try await known(id, matches: { $0.registrationToken.flatMap(FirebaseInstallation.installationID(of:)) == Substring(id) }) {
            return known
        }
        guard let token = try await store.registrationToken(installationID: id),
            let found = try await store.firebaseRecipient(registrationToken: token)
        else { return nil }
        places.remember(id, device: found.device.token, app: found.app)
        return try await recipient(found)
    }

    /// A token or ID seen before, whose app the device's session still has with it.
    private func known(_ key: String, matches: (FirebaseInstallation) -> Bool) async throws -> Recipient? {
        let found = try await places.remembered(key, in: centers) { session, app in
            session.firebaseInstallation(of: app).flatMap { matches($0) ? $0 : nil }
        }
        return found.map { Recipient(session: $0.session, app: $0.app, installation: $0.value) }
    }

    private func recipient(_ found: FirebaseRecipient) async throws -> Recipient? {
        guard let session = try await centers.session(for: found.device.token) else { return nil }
        return Recipient(session: session, app: found.app, installation: session.firebaseInstallation(of: found.app) ?? found.installation)
    }
}
