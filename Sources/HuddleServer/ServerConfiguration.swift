public import Foundation

/// How `huddle serve` runs.
public struct ServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    public var port: Int = 8443
    /// PEM files for a TLS port; both or neither.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// Accept provider requests without a provider token. Only for a server on the loopback address.
    public var developmentMode = false
    /// The bearer token of the admin API; the admin API is off without one.
    public var adminToken: String?
    /// Adds `POST /bench/accept`, which reads the body and answers 200 without checking or storing anything:
    /// the baseline that push throughput is measured against (same build, same run).
    public var benchmarkRoutes = false
    /// How many devices' centers a server keeps in memory; past that, the least recently used ones that no
    /// live stream watches are let go (and read from the store again when needed).
    public var maximumLoadedDevices = 10_000
    /// How often open live streams get a heartbeat comment.
    public var heartbeatInterval: Duration = .seconds(15)
    /// The clock, replaceable in tests of token expiry.
    public var clock: @Sendable () -> Date = { Date() }

    public init() {}
}
