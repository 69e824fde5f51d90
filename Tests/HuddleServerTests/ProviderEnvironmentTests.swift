import HuddleCore
@testable import HuddleServer
import Testing

/// Which environment a request goes to, by the host it names (docs/environments.md).
@Suite struct ProviderEnvironmentTests {
    @Test(arguments: [
        ("api.push.apple.com", APNsEnvironment.production), ("API.Push.Apple.COM:443", .production), ("api.push.apple.com:2197", .production),
        ("api.sandbox.push.apple.com", .development), ("api.push.apple.com.example", .development), ("api.push.apple.co", .development),
        ("localhost:8443", .development), ("", .development),
        ("api-manage-broadcast.push.apple.com:2196", .production), ("api-manage-broadcast.sandbox.push.apple.com:2195", .development),
        ("api-manage-broadcast.push.apple.com.example", .development),
    ])
    func theProductionHostIsProductionAndEverythingElseDevelopment(authority: String, environment: APNsEnvironment) {
        #expect(ProviderEndpoint.environment(of: authority) == environment)
    }

    @Test func noAuthorityIsDevelopment() {
        #expect(ProviderEndpoint.environment(of: nil) == .development)
    }
}
