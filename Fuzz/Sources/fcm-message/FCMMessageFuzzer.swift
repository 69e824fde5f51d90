import HuddleCore
import HuddleFCM

/// A `messages:send` body from arbitrary bytes: it is read or refused with an error that names a field and writes
/// as google.rpc.Status JSON that parses again; a message read is within FCM's size limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let json = try? JSONParser.parse(UnsafeBufferPointer(start: start, count: count)) else { return 0 }
    do {
        let request = try FCMSendRequest(json: json)
        precondition(request.message.payloadSize <= FCMMessage.maximumPayloadSize)
    } catch {
        precondition(!error.fieldViolations.isEmpty || error.code != nil)
        precondition((try? JSONParser.parse(error.json.jsonText())) == error.json)
    }
    return 0
}
