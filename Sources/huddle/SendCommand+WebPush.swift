import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import HuddleCore
import HuddleWebPush
import NIOCore
import NIOHTTP1

extension SendCommand {
    /// A web push as an application server sends one (RFC 8030, 8291, 8292): the payload encrypted for the
    /// subscription, a VAPID token for the endpoint's origin, and the answer's status, `Location` and body printed.
    func sendWebPush(subscriptionFile: String, vapidKeyFile: String) async throws {
        let plaintext = payload == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try CommandFailure.contents(of: payload, what: "the payload")
        let subscription = try Self.subscription(try CommandFailure.contents(of: subscriptionFile, what: "the subscription"), file: subscriptionFile)
        let keyText = String(decoding: try CommandFailure.contents(of: vapidKeyFile, what: "the VAPID key"), as: UTF8.self)
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: keyText)
        } catch {
            throw CommandFailure(.badInput, "\(vapidKeyFile) is not a P-256 private key in PEM: \(error)")
        }
        guard plaintext.count <= 3993 else {
            throw CommandFailure(.badInput, "the payload is \(plaintext.count) bytes; a web push carries at most 3993 (RFC 8291 §4)")
        }
        let body = try MessageEncryption.encrypt(aes128gcm: plaintext, to: subscription.publicKey, authSecret: subscription.auth)
        // Chrome's own sender asks for 12 hours, well inside VAPID's 24, against clocks that differ.
        let expiry = Int64(Date().timeIntervalSince1970) + 12 * 60 * 60
        var request = HTTPClientRequest(url: subscription.endpoint)
        request.method = .POST
        request.headers.add(
            name: "authorization", value: try VAPIDCredentials.authorization(audience: subscription.origin, expiresAt: expiry, subject: subject, key: key))
        request.headers.add(name: "content-encoding", value: "aes128gcm")
        request.headers.add(name: "ttl", value: String(ttl))
        if let urgency { request.headers.add(name: "urgency", value: urgency) }
        if let topic { request.headers.add(name: "topic", value: topic) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let (response, responseBody) = try await execute(request, at: subscription.endpoint)
        let location = response.headers.first(name: "location").map { " location: \($0)" } ?? ""
        let text = String(buffer: responseBody).trimmingCharacters(in: .whitespacesAndNewlines)
        print("\(response.status.code) \(response.version)\(location)" + (text.isEmpty ? "" : " \(text)"))
        if response.status.code != 201 { throw ExitCode(1) }
    }

    /// What a subscription's JSON gives a sender: its endpoint and that endpoint's origin, and the browser's keys.
    struct Subscription {
        var endpoint: String
        var origin: String
        var publicKey: P256.KeyAgreement.PublicKey
        var auth: Data
    }

    static func subscription(_ data: Data, file: String) throws -> Subscription {
        do {
            let json = JSONReader(try JSONParser.parse(data))
            let endpoint = try json.member("endpoint").string()
            // The endpoint's origin as a browser serializes it (scheme, lowercase host, port unless the default): VAPID's
            // aud, which the push service compares with its own.
            guard URL(string: endpoint)?.host != nil, let schemeEnd = endpoint.range(of: "://") else {
                throw CommandFailure(.badInput, "\(file): endpoint is not a URL: \(endpoint.prefix(100))")
            }
            let authority = endpoint[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let origin = WebPushSubscription.canonicalOrigin(String(endpoint[..<schemeEnd.upperBound]) + authority)
            let keys = try json.member("keys")
            guard let p256dh = Base64URL.decode(Substring(try keys.member("p256dh").string())),
                let publicKey = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)
            else { throw CommandFailure(.badInput, "\(file): keys.p256dh is not a P-256 public key in base64url") }
            guard let auth = Base64URL.decode(Substring(try keys.member("auth").string())), auth.count == 16 else {
                throw CommandFailure(.badInput, "\(file): keys.auth is not 16 bytes in base64url")
            }
            return Subscription(endpoint: endpoint, origin: origin, publicKey: publicKey, auth: auth)
        } catch let error as JSONParseError {
            throw CommandFailure(.badInput, "\(file) is not JSON: \(error)")
        } catch let error as JSONReadError {
            throw CommandFailure(.badInput, "\(file) is not a push subscription: \(error)")
        }
    }
}
