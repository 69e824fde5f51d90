@testable import HuddleServer
import NIOCore
import NIOEmbedded
import Testing

/// A provider connection's state lives while the connection is open. On the connection's own event loop, a
/// connection that has closed already runs its close callback at once, inside the call that registers it.
struct ProviderConnectionsTests {
    @Test func aConnectionIsForgottenWhenItCloses() {
        let loop = EmbeddedEventLoop()
        let connections = ProviderConnections()
        let closed = loop.makePromise(of: Void.self)
        _ = connections.state(of: ObjectIdentifier(closed.futureResult), closed: closed.futureResult)
        #expect(connections.count == 1)
        closed.succeed()
        loop.run()
        #expect(connections.count == 0)
    }

    @Test func aConnectionThatClosedBeforeItsFirstRequestIsForgottenAtOnce() {
        let loop = EmbeddedEventLoop()
        let connections = ProviderConnections()
        let closed = loop.makeSucceededVoidFuture()
        // Registering the callback runs it here and now (the loop is this thread's): it must not find the
        // table locked.
        _ = connections.state(of: ObjectIdentifier(closed), closed: closed)
        #expect(connections.count == 0)
    }
}
