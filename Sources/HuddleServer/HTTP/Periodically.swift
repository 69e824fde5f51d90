import ServiceLifecycle

/// Periodic work of a service (``SummaryDelivery``, ``ReceiptRetention``): a round every interval, until the server's
/// graceful shutdown or the service's cancellation.
enum Periodically {
    static func run(every interval: Duration, _ round: @escaping @Sendable () async -> Void) async {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                await round()
            }
        }
    }
}
