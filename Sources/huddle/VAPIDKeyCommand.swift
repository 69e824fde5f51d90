import ArgumentParser
import Crypto
import Foundation
import HuddleCore

extension KeysCommand {
    /// An application server's VAPID key (RFC 8292), made here: no server is involved, since a push service learns the
    /// key from each subscription and each push.
    struct VAPID: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "vapid",
            abstract: "Make a Web Push application server key (VAPID, P-256), or read one, and print its applicationServerKey.",
            discussion: """
                Writes the private key as PKCS #8 PEM to --out (unless --key names an existing one) and prints the \
                public key as a page passes it to PushManager.subscribe() and a subscription's applicationServerKey \
                takes it: 65 bytes, uncompressed, base64url. huddle send --web-push signs with the PEM.
                """)

        @Option(help: "Where to write the new private key (PEM).") var out: String?
        @Option(help: "An existing private key (PEM, PKCS #8 or SEC 1) to read instead of making one.") var key: String?

        func validate() throws {
            if (out == nil) == (key == nil) { throw ValidationError("give --out to make a key, or --key to read one") }
        }

        func run() throws {
            let privateKey: P256.Signing.PrivateKey
            if let key {
                let text = String(decoding: try CommandFailure.contents(of: key, what: "the VAPID key"), as: UTF8.self)
                do {
                    privateKey = try P256.Signing.PrivateKey(pemRepresentation: text)
                } catch {
                    throw CommandFailure(.badInput, "\(key) is not a P-256 private key in PEM: \(error)")
                }
            } else {
                privateKey = P256.Signing.PrivateKey()
                let path = out ?? "vapid.pem"
                // A key replaced is every subscription made with it lost: never overwritten.
                guard !FileManager.default.fileExists(atPath: path) else {
                    throw CommandFailure(.cannotWrite, "\(path) exists: an application server key is not replaced (its subscriptions would be lost); read it with --key")
                }
                guard FileManager.default.createFile(atPath: path, contents: Data(privateKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
                else { throw CommandFailure(.cannotWrite, "cannot write \(path)") }
            }
            print(Base64URL.encode(privateKey.publicKey.x963Representation))
        }
    }
}
