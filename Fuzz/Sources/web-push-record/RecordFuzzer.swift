import Crypto
import Foundation
import HuddleWebPush

/// RFC 8291's `aes128gcm` body from arbitrary bytes: decrypting it with one subscription's keys ends in a plaintext or
/// a named failure. The same bytes as a plaintext (up to the 3,993 a push carries) come back unchanged from encrypting
/// then decrypting them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: start, count: count))
    // Made per input: a global's storage looks leaked to LeakSanitizer.
    guard let keys = SubscriptionKeys(privateKeyBytes: Data(repeating: 7, count: 32), authSecret: Data(repeating: 1, count: 16)) else { return 0 }
    _ = try? MessageEncryption.decrypt(aes128gcm: bytes, keys: keys)
    guard let privateKey = keys.privateKey, let publicKey = keys.publicKey else { return 0 }
    _ = try? MessageEncryption.decrypt(aesgcm: bytes, salt: bytes.prefix(16), senderKey: publicKey, keys: keys)
    guard bytes.count <= 3993, let sealed = try? MessageEncryption.encrypt(aes128gcm: bytes, to: privateKey.publicKey, authSecret: keys.authSecret)
    else { return 0 }
    precondition((try? MessageEncryption.decrypt(aes128gcm: sealed, keys: keys)) == bytes)
    return 0
}
