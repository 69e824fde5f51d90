import HuddleAPNs

/// `APNsPayload.decode` on arbitrary bytes, with the limits of an alert push and of a VoIP push.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    if let payload = try? APNsPayload.decode(bytes) {
        // Touch what the server reads next, so a lazily built value that traps is found too.
        _ = payload.content
        _ = payload.notes.count
    }
    _ = try? APNsPayload.decode(bytes, maximumSize: APNsPayload.maximumVoIPSize)
    return 0
}
