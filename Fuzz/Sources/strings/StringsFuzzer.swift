import Foundation
import HuddleLocalization

/// `StringsFileReader` on arbitrary bytes, and on the same text already decoded when it is UTF-8; both
/// ways must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let reader = StringsFileReader()
    let fromData: Result<[String: LocalizedEntry], CatalogError>
    do {
        fromData = .success(try reader.read(Data(buffer: bytes), file: "Fuzz.strings"))
    } catch {
        _ = error.description
        fromData = .failure(error)
    }
    // Plain UTF-8 without a byte order mark or zero bytes decodes to the same text either way.
    guard !bytes.contains(0), !bytes.starts(with: [0xEF, 0xBB, 0xBF]), !bytes.starts(with: Array("bplist".utf8)),
        let text = String(validating: bytes, as: UTF8.self)
    else { return 0 }
    do {
        let fromText = try reader.read(text: text, file: "Fuzz.strings")
        guard case .success(let entries) = fromData, entries == fromText else {
            fatalError("read(text:) accepts what read(_:file:) refuses or reads differently: \(fromData)")
        }
    } catch {
        guard case .failure(let dataError) = fromData, dataError == error else {
            fatalError("read(text:) refuses what read(_:file:) reads: \(error) / \(fromData)")
        }
    }
    return 0
}
