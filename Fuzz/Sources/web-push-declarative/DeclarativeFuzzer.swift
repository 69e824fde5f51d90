import Foundation
import HuddleWebPush

/// A push's plaintext from arbitrary bytes, read as Safari reads a Declarative Web Push: a message read has a title and
/// an absolute URL to go to, and a badge that is not negative.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: start, count: count))
    guard case .declarative(let message) = DeclarativePushMessage.read(bytes) else { return 0 }
    precondition(!message.title.isEmpty && message.navigate.contains(":"))
    precondition((message.appBadge ?? 0) >= 0)
    return 0
}
