import Foundation
import HuddleLocalization

/// The property-list reader through both of its callers: `StringsdictReader` (dictionaries of formats and
/// plural variables) and `StringsFileReader`, which reads XML property lists of strings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let entries = try StringsdictReader().read(data, file: "Fuzz.stringsdict")
        for (_, entry) in entries {
            if case .plural(let format) = entry { _ = format.variables.count }
        }
    } catch {
        _ = error.description
    }
    do {
        _ = try StringsFileReader().read(data, file: "Fuzz.strings")
    } catch {
        _ = error.description
    }
    return 0
}
