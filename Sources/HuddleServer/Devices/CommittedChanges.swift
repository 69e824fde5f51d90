import HuddleCore
import Synchronization

/// A device's changes that the ``CommitQueue`` committed and its session has not applied yet. The queue
/// adds them as each batch commits; the session takes them all when one of its writers comes back, so that
/// a writer whose change another writer's return applied finds nothing left to do.
final class CommittedChanges: Sendable {
    private let changes = Mutex<[DeviceChange]>([])

    func add(_ committed: [DeviceChange]) {
        guard !committed.isEmpty else { return }
        changes.withLock { $0 += committed }
    }

    /// Every change added and not taken yet, in number order.
    func take() -> [DeviceChange] {
        changes.withLock { changes in
            defer { changes = [] }
            return changes.sorted { $0.number < $1.number }
        }
    }
}
