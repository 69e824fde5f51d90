
/// The host names the device API and the pages answer to: loopback names, IP addresses (a browser that
/// sends an address as the host reached this server by it, with no name an attacker could point elsewhere),
/// the name the server listens on, and the names of `--public-host`.
struct AllowedHosts: Sendable {
    private let names: Set<String>
    private let anyHost: Bool

    init(publicHosts: [String], listeningHost: String) {
        anyHost = publicHosts.contains("*")
        names = Set((["localhost", listeningHost] + publicHosts).map { Self.normalized($0[...]) })
    }

    /// Whether `authority` (`host[:port]`) names this server; a request without one (HTTP/1.0) passes.
    func allows(_ authority: String?) -> Bool {
        guard !anyHost, let authority, !authority.isEmpty else { return true }
        let host = Self.host(of: authority)
        return Self.isIPAddress(host) || names.contains(Self.normalized(host))
    }

    /// The host of `host:port`, `[v6]:port`, or a host alone; anything after the host that is not a port
    /// stays with it, so that such a host matches no name.
    static func host(of authority: String) -> Substring {
        let end = authority.hasPrefix("[")
            ? authority.firstIndex(of: "]").map(authority.index(after:)) : authority.firstIndex(of: ":")
        guard let end, authority[end...].first == ":", authority[end...].dropFirst().allSatisfy({ ("0"..."9").contains($0) }) else {
            return authority[...]
        }
        return authority[..<end]
    }

    /// An IPv4 address (four numbers up to 255) or a bracketed IPv6 address.
    static func isIPAddress(_ host: Substring) -> Bool {
        if host.hasPrefix("[") {
            return host.hasSuffix("]") && host.count > 2
                && host.dropFirst().dropLast().unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy { ("0"..."9").contains($0) } && Int(part)! <= 255
        }
    }

    private static func normalized(_ host: Substring) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
