import NIOCore

/// A task executor that runs its jobs on one NIO event loop: a push's task prefers its connection's event
/// loop, so that its checks, its session's work and its answer run on the thread that read it, instead of
/// hopping to Swift's pool and back (two thread wake-ups per push; on a small machine the hops, not the work,
/// were most of a push's cost beyond the HTTP/2 codec).
///
/// Actors without an executor of their own (the sessions, the caches) run a preferring task's work here too
/// (SE-0417); they stay serial as always. A task that waits for a store resumes here when its commit ends.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
