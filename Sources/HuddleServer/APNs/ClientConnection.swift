import Foundation
import HuddleAPNs
import HuddleCore
import NIOCore
import NIOSSL
import Synchronization

/// What the server knows of one client connection to its port, for the connection's life: the provider-token state its
/// requests build (``ProviderConnectionState``: the token it presented, and the team it is bound to) and the client
/// certificate its TLS handshake presented, read at its first request that asks.
///
/// The transport makes one for each connection, keeps it in the connection's pipeline (``Holder``) and hands it to every
/// push it answers itself; a request the router answers finds it there (``of(_:)``). It goes with its connection: no
/// table outlives a connection, and the lock a push takes is its own connection's, never one that every connection
/// shares.
final class ClientConnection: Sendable {
    private let tokens = Mutex(ProviderConnectionState())
    private let certificate = Mutex<PresentedCertificate?>(nil)

    /// The token state as it is now, which a new token's verification starts from.
    var tokenState: ProviderConnectionState { tokens.withLock { $0 } }

    /// The token the connection last had admitted, if any.
    var token: ProviderToken? { tokens.withLock { $0.token } }

    /// Admits a verified token, atomically: the connection's rules are checked against its state as it is at this
    /// moment, not as it was when the token's verification began, so that concurrent streams of the connection cannot
    /// both bind it (to two teams, or to two new tokens).
    func admit(_ token: ProviderToken, key: SigningKeyRecord, bundleIdentifier: String, now: Date) throws(APNsReason) {
        try tokens.withLock { state throws(APNsReason) in
            try state.admit(token, key: key, bundleIdentifier: bundleIdentifier, now: now)
        }
    }

    /// The client certificate the connection presented, read from its TLS handler on the first call.
    ///
    /// The handshake already verified it against the authority `--client-ca` names (NIOSSL's optional verification: a
    /// connection without a certificate is let in for token authentication, one with a certificate that does not verify
    /// is refused in the handshake).
    /// - Parameter channel: the connection's channel (an HTTP/2 stream's parent).
    func presentedCertificate(on channel: any Channel) async -> PresentedCertificate {
        if let known = certificate.withLock({ $0 }) { return known }
        let presented: PresentedCertificate
        do {
            presented = try await channel.nioSSL_peerCertificate().get().map(PresentedCertificate.init(reading:)) ?? .none
        } catch {
            // No TLS handler: not a TLS connection, so no certificate.
            presented = .none
        }
        certificate.withLock { $0 = presented }
        return presented
    }

    /// The connection's place in its pipeline, where a request the router answers finds it.
    final class Holder: ChannelInboundHandler, RemovableChannelHandler, Sendable {
        typealias InboundIn = Any
        let connection: ClientConnection

        init(_ connection: ClientConnection) {
            self.connection = connection
        }
    }

    /// The connection of `channel` (a connection's channel, an HTTP/2 stream's parent), as its transport made it; a new
    /// one for a channel the transport did not make (a test's).
    static func of(_ channel: any Channel) async -> ClientConnection {
        (try? await channel.pipeline.handler(type: Holder.self).get())?.connection ?? ClientConnection()
    }
}
