/// The command lines that push a first notification to a device, as the pages show them: `huddle send` and
/// curl, written for the server's address as the browser reached it, and before them, for a device with no
/// app, the curl line that installs one (a push to a topic the device has no app for is refused).
struct PushCommands: Equatable {
    /// `scheme://host:port`, as the browser reached the server.
    var origin: String
    var token: String
    var topic: String
    /// Whether the server takes pushes without a provider token (`--development`).
    var developmentMode: Bool
    /// Whether the device has an app yet; without one, ``install`` comes first and installs ``topic``.
    var hasApps = true

    /// The topic to push to on a device with these apps: the example app when it has it (its category is the
    /// one ``examplePayload`` names), else its first, else the one ``install`` installs.
    static func topic(among apps: [String]) -> String {
        apps.contains(ExampleApp.topic) ? ExampleApp.topic : apps.first ?? ExampleApp.topic
    }

    /// A message with a summary argument in the example app's category: pushed twice, the stack sums up
    /// the one below in plural form ("1 more message from Teja"). An app without that category gives
    /// Huddle's default summary, as iOS does for a category it does not know. No `'`, which would end the
    /// shell's quotes.
    static let examplePayload =
        #"{"aps": {"alert": {"title": "Teja", "body": "Lunch at noon?", "summary-arg": "Teja"}, "category": "\#(ExampleApp.category)"}}"#

    /// The app a device without one installs, by the device API, with the secret its registration gave.
    var install: String? {
        guard !hasApps else { return nil }
        return "curl -X PUT \(origin)/v1/devices/\(token)/apps/\(topic) -H \"authorization: Bearer $SECRET\" \\\n     -d '{\"name\": \"Chat\"}'"
    }

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
