/// The two command lines that push a first notification to a device, as the pages show them: `huddle
/// send` and curl, written for the server's address as the browser reached it.
struct PushCommands: Equatable {
    /// `scheme://host:port`, as the browser reached the server.
    var origin: String
    var token: String
    var topic: String
    /// Whether the server takes pushes without a provider token (`--development`).
    var developmentMode: Bool

    static let examplePayload = #"{"aps": {"alert": {"title": "Hello", "body": "From Huddle"}}}"#

    /// Writes the payload, then sends it; a provider token is signed with the team's key unless the server
    /// does without one.
    var send: String {
        let key = developmentMode ? "" : " --key AuthKey_KEYID.p8 --team-id TEAMID"
        return "echo '\(Self.examplePayload)' > push.json\nhuddle send push.json --url \(origin) --device \(token) --topic \(topic)\(key)"
    }

    /// HTTP/2 with prior knowledge in cleartext, negotiated by ALPN over TLS; a provider token (`$JWT`)
    /// unless the server does without one.
    var curl: String {
        let http2 = origin.hasPrefix("https:") ? "--http2" : "--http2-prior-knowledge"
        let authorization = developmentMode ? "" : " -H \"authorization: bearer $JWT\""
        return "curl \(http2) \(origin)/3/device/\(token)\(authorization) -H 'apns-topic: \(topic)' \\\n     -d '\(Self.examplePayload)'"
    }
}
