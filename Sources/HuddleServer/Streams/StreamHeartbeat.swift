import ServiceLifecycle

/// The heartbeat of every live stream (centers, groups, the request inspector), on one clock: every
/// interval, each beat it was given sends its streams a comment, so that proxies and clients do not take a
/// quiet stream for a dead one. A service: it stops at graceful shutdown. The clock is the real one in a
/// server and one a test moves by hand in its tests.
struct StreamHeartbeat: Service {
    let interval: Duration
    let clock: any Clock<Duration>
    let beats: [@Sendable () -> Void]

    init(interval: Duration, clock: any Clock<Duration> = ContinuousClock(), beats: [@Sendable () -> Void]) {
        self.interval = interval
        self.clock = clock
        self.beats = beats
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await clock.sleep(for: interval)
                for beat in beats { beat() }
            }
        }
    }
}
