import ServiceLifecycle

#if canImport(Glibc)
/// glibc's `malloc_trim` (malloc.h, which Swift's Glibc module leaves out).
@_silgen_name("malloc_trim")
private func mallocTrim(_ keep: Int) -> Int32
#endif

/// Gives the memory of connections gone back to the system: glibc's allocator keeps what it freed in the middle
/// of its heaps for reuse, so a burst of connections (an attack of unread answers, say) would leave the server
/// holding its peak long after they closed. Every `interval`, if at least `closedConnections` closed since the
/// last look, `malloc_trim` returns the free pages. Elsewhere (musl in the static build, macOS) there is no such
/// call, and nothing to do.
struct MemoryReturn: Service {
    let connections: ConnectionLimit
    let interval: Duration
    let closedConnections: Int

    init(connections: ConnectionLimit, interval: Duration = .seconds(5), closedConnections: Int = 16) {
        self.connections = connections
        self.interval = interval
        self.closedConnections = closedConnections
    }

    func run() async throws {
        #if canImport(Glibc)
        try? await cancelWhenGracefulShutdown {
            var closedBefore = connections.closedInAll
            while true {
                try await Task.sleep(for: interval)
                let closed = connections.closedInAll
                guard closed - closedBefore >= closedConnections else { continue }
                closedBefore = closed
                _ = mallocTrim(0)
            }
        }
        #endif
    }
}
