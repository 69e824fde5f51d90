import Foundation
import HuddleCore
import HuddleServer
import Logging
import ServiceLifecycle

/// Installs the demo device once the store runs, and says where to look.
struct DemoInstaller<Store: NotificationStore>: Service {
    let store: Store
    let url: String
    let logger: Logger

    func run() async throws {
        let device = try await DemoDevice.install(in: store, now: Date())
        logger.notice("demo device: open \(url)/devices/\(device.token)/session#secret=\(device.secret)")
    }
}
