import HuddleCore
import Logging
import ServiceLifecycle

/// Keeps a server's centers in step with a store that other servers write to (added only for a store that
/// has such notices: a service that returns would end the server).
struct DeviceCentersService: Service {
    let centers: DeviceCenters
    let notices: AsyncStream<ChangeNotice>
    let logger: Logger

    func run() async throws {
        // Until graceful shutdown (which cancels the loop: an AsyncStream ends when its task is cancelled).
        await cancelWhenGracefulShutdown {
            await centers.follow(notices, logger: logger)
        }
    }
}
