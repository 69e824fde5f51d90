public import Foundation
import HuddleCore

/// How `huddle serve` runs.
public struct ServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    public var port: Int = 8443
    /// PEM files for a TLS port; both or neither.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// Whether the port speaks TLS: what the inspector records, where cookies may go, the pages' origin.
    var servesTLS: Bool { tlsCertificatePath != nil }
    /// A PEM certificate authority whose provider certificates the TLS port accepts (`--client-ca`): it then asks
    /// clients for a certificate, without requiring one, so token authentication works beside it.
    public var clientCertificateAuthorityPath: String?
    /// Accept provider requests without a provider token. Only for a server on the loopback address.
    public var developmentMode = false
    /// The bearer token of the admin API; the admin API is off without one.
    public var adminToken: String?
    /// The bearer token `POST /v1/devices` needs; anyone may register a device when it is `nil`.
    public var registrationToken: String?
    /// The bearer token `/metrics` needs; open when it is `nil`.
    public var metricsToken: String?
    /// The access token sends to Expo's push API must present; none when `nil`.
    public var expoAccessToken: String?
    /// Host names the device API and the pages answer to, besides the loopback names and IP addresses
    /// (`--public-host`); `"*"` answers to any. A browser lured to a name the attacker controls that
    /// resolves to this server (DNS rebinding) sends that name, and is refused.
    public var publicHosts: [String] = []
    /// How much of the server one client can take: every count and size a stranger controls.
    public var limits = Limits()
    /// Adds the baselines that push throughput is measured against (same build, same run):
    /// `POST /bench/accept`, which reads the body and answers 200 without checking or storing anything, and
    /// `POST /bench/check/3/device/<token>`, the provider endpoint with every check but storing nothing.
    public var benchmarkRoutes = false
    /// How many devices' centers a server keeps in memory; past that, the least recently used ones that no
    /// live stream watches are let go (and read from the store again when needed).
    public var maximumLoadedDevices = 10_000
    /// How often open live streams get a heartbeat comment.
    public var heartbeatInterval: Duration = .seconds(15)
    /// Whether the demo device runs (`--demo`): the home page then links its center.
    public var demo = false
    /// The clock, replaceable in tests of token expiry.
    public var clock: @Sendable () -> Date = { Date() }

    public init() {}

    /// Whether the server listens only on the loopback address, where whoever reaches it is trusted.
    public var listensOnLoopbackOnly: Bool { Self.isLoopback(host) }

    /// Whether `host` (an address to listen on) is a loopback one.
    public static func isLoopback(_ host: String) -> Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }

    /// `host:port` as a URL writes it (an IPv6 address in brackets).
    public var listeningAddress: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// A new random token (128 bits, hexadecimal), for a registration token nobody chose.
    public static func makeToken() -> String {
        Secrets.randomHex(bytes: 16)
    }
}

extension ServerConfiguration {
    /// Bounds on what clients can make the server hold. Each refusal names the limit it met.
    public struct Limits: Sendable {
        /// Open connections in all; more are closed as they arrive.
        public var connections = 4_096
        /// How long a request has to arrive whole, from its first byte (an HTTP/2 stream's opening, an HTTP/1.1
        /// request's head) to its last: a total, so that a body sent a byte at a time ends as surely as one that
        /// stops. Also how long an HTTP/1.1 connection may sit without sending (to finish its headers, or
        /// between requests), and an HTTP/2 connection that had no push accepted yet with no request under way.
        public var requestTimeout: Duration = .seconds(10)
        /// How long one write of an answer (a push's, a page's, an event of a live stream) may wait for its
        /// client to take it (to read it, or to open HTTP/2's flow-control window for it): past that, its HTTP/2
        /// stream is reset or its HTTP/1.1 connection closed, so that a client that stops reading gives back what
        /// its answers hold, and their place.
        public var writeTimeout: Duration = .seconds(30)
        /// Bytes of answers one HTTP/2 connection may hold for a client that does not take them: past that, the
        /// stream whose answer would go over is reset. One answer alone may be larger (Hummingbird writes it as
        /// the client's window opens).
        public var heldAnswerBytesPerConnection = 1 << 20
        /// How long an HTTP/2 connection whose last stream ended may stay open: APNs clients keep theirs
        /// between pushes. A connection that has not had a push accepted yet gets ``requestTimeout`` only.
        public var connectionIdleTimeout: Duration = .seconds(600)
        /// How long a new connection has to show which protocol it speaks.
        public var firstBytesTimeout: Duration = .seconds(10)
        /// Open live streams (center and group streams) of one device.
        public var streamsPerDevice = 64
        /// Open live streams in all.
        public var streams = 10_000
        /// Bytes of events a live stream may have waiting; a stream further behind is closed, and its
        /// client resumes with `Last-Event-ID`.
        public var streamBufferBytes = 1 << 20
        /// Devices the server keeps.
        public var devices = 100_000
        /// Apps one device may install.
        public var appsPerDevice = 100
        /// Broadcast channels one app may have in each environment (Apple's bound).
        public var channelsPerApp = BroadcastChannel.maximumPerApp
        /// Notifications one app keeps on a device; past that, its oldest go (as removals, which streams and
        /// other servers see). Without a bound, a provider that keeps pushing would fill the server's memory.
        public var notificationsPerApp = 10_000
        /// Bytes of localization files (`.strings`, `.stringsdict`, `.xcstrings`) one app may upload in all.
        public var localizationBytesPerApp = 8 << 20
        /// Provider requests the request inspector keeps (the oldest go first).
        public var requestHistory = 10_000
        /// Bytes of provider requests (their payloads, mostly) the request inspector keeps.
        public var requestHistoryBytes = 16 << 20

        public init() {}
    }
}
