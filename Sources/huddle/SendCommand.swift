import ArgumentParser
import AsyncHTTPClient
import Foundation
import HuddleAPNs
import HuddleCore
import HuddleFCM
import NIOCore
import NIOHTTP1
import NIOSSL

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a push, as a provider does, to Huddle or any APNs-compatible endpoint; or, with --fcm, an FCM message; with --web-push, a web push; with --expo, Expo messages.",
        discussion: """
            Reads the payload from a file (or standard input with -), signs a provider token with the .p8 key, \
            and prints the status, the reason and the apns-id. HTTPS URLs use HTTP/2 (ALPN), http:// URLs \
            HTTP/1.1. Exits 0 on 200, 1 on a refusal, 66 for a payload or key file that is not there, 69 when \
            nothing answers at the URL.

            With --fcm <service-account.json>, the file is an FCM messages:send body (or its message alone): the \
            key file's account gets an access token from its token_uri, as Google's SDKs do, and the message goes \
            to <url>/v1/projects/<project_id>/messages:send; the answer's name or error is printed.

            With --web-push <subscription.json> (what PushSubscription.toJSON() gave the page: endpoint, keys.p256dh, \
            keys.auth) and --vapid-key <key.pem>, the file is the push's plaintext (any bytes; a Declarative Web Push is \
            JSON): it is encrypted as RFC 8291's aes128gcm for the subscription, signed with VAPID (aud: the \
            endpoint's origin, exp: 12 hours, sub: --subject), and sent to the endpoint with TTL (--ttl), and \
            Urgency and Topic when given (--urgency, --topic). Exits 0 on 201.

            With --expo, the file is what Expo's push API takes (one message, or an array of them, each with its \
            ExponentPushToken[…] in to): it goes to <url>/--/api/v2/push/send (with --expo-access-token as a bearer \
            token when given), and the answer, its tickets, is printed. Exits 0 when every ticket is ok.
            """
    )

    @Argument(help: "The payload file (JSON), or - for standard input.")
    var payload: String

    @Option(help: "The endpoint, e.g. http://127.0.0.1:8443 or https://api.sandbox.push.apple.com.")
    var url = "http://127.0.0.1:8443"

    @Option(help: "The device token.") var device: String?
    @Option(help: "The apns-topic (the app's bundle identifier); with --web-push, the Topic header.") var topic: String?
    @Option(help: "Send an FCM message instead, authenticated by this service account's JSON key file (huddle fcm service-account writes one).")
    var fcm: String?
    @Option(help: "Send a web push instead, to this subscription (JSON: endpoint, keys.p256dh, keys.auth).") var webPush: String?
    @Flag(help: "Send Expo messages instead, to Expo's push API at --url.") var expo = false
    @Option(help: "With --expo: the project's access token (enhanced push security).") var expoAccessToken: String?
    @Option(help: "With --web-push: the application server's VAPID private key (PEM; huddle keys vapid makes one).") var vapidKey: String?
    @Option(help: "With --web-push: VAPID's sub, a contact (mailto: or https:), which Apple's service requires.") var subject: String?
    @Option(help: "With --web-push: the TTL header, in seconds.") var ttl = 60
    @Option(help: "With --web-push: the Urgency header (very-low, low, normal, high).") var urgency: String?
    @Option(help: "The .p8 signing key; without it no provider token is sent.") var key: String?
    @Option(help: "The key identifier (kid); default: from the key file name AuthKey_KEYID.p8.") var keyId: String?
    @Option(help: "The team identifier (iss).") var teamId: String?
    @Option(help: "apns-push-type.") var pushType = "alert"
    @Option(help: "apns-priority.") var priority: Int?
    @Option(help: "apns-collapse-id.") var collapseId: String?
    @Option(help: "apns-expiration (UNIX seconds).") var expiration: Int?
    @Option(help: "apns-id (a UUID).") var apnsId: String?
    @Option(help: "A PEM CA certificate to trust (a test server's self-signed certificate).") var caCertificate: String?
    @Option(help: "development or production: name Apple's host of that environment as the request's authority (Huddle picks the environment by it), whatever --url connects to.")
    var environment: APNsEnvironment?

    func validate() throws {
        if key != nil, teamId == nil { throw ValidationError("--key needs --team-id.") }
        if webPush != nil, vapidKey == nil { throw ValidationError("--web-push needs --vapid-key (huddle keys vapid --out vapid.pem makes one).") }
        if webPush == nil, vapidKey != nil || subject != nil || urgency != nil { throw ValidationError("--vapid-key, --subject and --urgency are for --web-push.") }
        if [fcm != nil, webPush != nil, expo].filter({ $0 }).count > 1 { throw ValidationError("--fcm, --web-push and --expo send one kind each: choose one.") }
        if !expo, expoAccessToken != nil { throw ValidationError("--expo-access-token is for --expo.") }
        if fcm == nil, webPush == nil, !expo, device == nil || topic == nil {
            throw ValidationError("an APNs push needs --device and --topic (or send an FCM message with --fcm, a web push with --web-push, Expo messages with --expo).")
        }
    }

    func run() async throws {
        try await reportingFailures {
            if let fcm {
                try await sendFCM(keyFile: fcm)
            } else if let webPush, let vapidKey {
                try await sendWebPush(subscriptionFile: webPush, vapidKeyFile: vapidKey)
            } else if expo {
                try await sendExpo()
            } else {
                try await send()
            }
        }
    }

    private func send() async throws {
        let body = payload == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try CommandFailure.contents(of: payload, what: "the payload")
        guard let device, let topic else { return }
        var request = HTTPClientRequest(url: url.trimmingSuffix("/") + "/3/device/\(device)")
        request.method = .POST
        request.headers.add(name: "apns-topic", value: topic)
        request.headers.add(name: "apns-push-type", value: pushType)
        if let priority { request.headers.add(name: "apns-priority", value: String(priority)) }
        if let collapseId { request.headers.add(name: "apns-collapse-id", value: collapseId) }
        if let expiration { request.headers.add(name: "apns-expiration", value: String(expiration)) }
        if let apnsId { request.headers.add(name: "apns-id", value: apnsId) }
        if let environment {
            request.headers.replaceOrAdd(name: "host", value: environment.host)
        }
        if let key, let teamId {
            let token = try TokenCommand.sign(key: key, keyID: keyId, teamID: teamId, issuedAt: Date())
            request.headers.add(name: "authorization", value: "bearer \(token)")
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        let (response, responseBody) = try await execute(request, at: url)
        let apnsID = response.headers.first(name: "apns-id") ?? "-"
        let text = String(buffer: responseBody)
        print("\(response.status.code) \(response.version) apns-id: \(apnsID)" + (text.isEmpty ? "" : " \(text.trimmingCharacters(in: .whitespacesAndNewlines))"))
        if response.status.code != 200 { throw ExitCode(1) }
    }

    /// Sends a request with HTTP/2 where TLS offers it, trusting `--ca-certificate`.
    func execute(_ request: HTTPClientRequest, at address: String) async throws -> (HTTPClientResponse, ByteBuffer) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caCertificate {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caCertificate))
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return (response, body)
        } catch {
            try await client.shutdown()
            throw CommandFailure.unreachable(address, error)
        }
    }

    /// An FCM message as Google's SDKs send one: an access token from the key file's `token_uri` (the JWT bearer
    /// grant), then `messages:send`.
    private func sendFCM(keyFile: String) async throws {
        let body = payload == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try CommandFailure.contents(of: payload, what: "the message")
        let key: JSONReader
        var message: JSONValue
        do {
            key = JSONReader(try JSONParser.parse(try CommandFailure.contents(of: keyFile, what: "the service account's key file")))
            message = try JSONParser.parse(body)
        } catch let error as JSONParseError {
            throw CommandFailure(.badInput, "not JSON: \(error)")
        }
        let project: String, keyID: String, email: String, privateKey: String, tokenURI: String
        do {
            (project, keyID, email) = (try key.member("project_id").string(), try key.member("private_key_id").string(), try key.member("client_email").string())
            (privateKey, tokenURI) = (try key.member("private_key").string(), try key.member("token_uri").string())
        } catch {
            throw CommandFailure(.badInput, "\(keyFile) is not a service account's key file: \(error)")
        }
        // A message alone is sent as the body FCM takes.
        if message["message"] == nil { message = .object(JSONObject([("message", message)])) }
        let assertion = try ServiceAccountAssertion.sign(
            keyID: keyID, clientEmail: email, scopes: Array(ServiceAccountAssertion.messagingScopes).sorted(), issuedAt: Date(), privateKeyPEM: privateKey)
        var grant = HTTPClientRequest(url: tokenURI)
        grant.method = .POST
        grant.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let form = "grant_type=" + "urn:ietf:params:oauth:grant-type:jwt-bearer".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            + "&assertion=" + assertion
        grant.body = .bytes(ByteBuffer(string: form))
        let (granted, grantBody) = try await execute(grant, at: tokenURI)
        guard granted.status.code == 200, case .string(let accessToken)? = try? JSONParser.parse(grantBody.readableBytesView)["access_token"] else {
            throw CommandFailure(.badInput, "\(tokenURI) gave no access token: \(granted.status.code) \(String(buffer: grantBody))")
        }
        var request = HTTPClientRequest(url: url.trimmingSuffix("/") + "/v1/projects/\(project)/messages:send")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "authorization", value: "Bearer \(accessToken)")
        request.body = .bytes(ByteBuffer(bytes: message.jsonUTF8()))
        let (response, responseBody) = try await execute(request, at: url)
        print("\(response.status.code) \(String(buffer: responseBody).trimmingCharacters(in: .whitespacesAndNewlines))")
        if response.status.code != 200 { throw ExitCode(1) }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
