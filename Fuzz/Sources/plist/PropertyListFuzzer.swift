import Foundation
import HuddleLocalization

/// The property-list reader through both of its callers: `StringsdictReader` (dictionaries of formats and
/// plural variables) and `StringsFileReader`, which reads XML property lists of strings; and the linter's
/// lenient read of the same bytes, which must accept whatever the strict read accepts, with the same
/// entries and no problems.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    var strict: [String: LocalizedEntry]?
    do {
        let entries = try StringsdictReader().read(data, file: "Fuzz.stringsdict")
        for (_, entry) in entries {
            if case .plural(let format) = entry { _ = format.variables.count }
        }
        strict = entries
    } catch {
        _ = error.description
    }
    let inspection = try? CatalogInspection.inspect(data, file: "ru.lproj/Fuzz.stringsdict", language: "ru")
    for entry in inspection?.entries.prefix(64) ?? [] {
        _ = FormatSignature(entry.value).description
    }
    if let strict {
        guard let inspection, inspection.problems.isEmpty,
            Dictionary(inspection.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }) == strict
        else {
            fatalError("the lenient read disagrees with the strict read of a valid .stringsdict")
        }
    }
    do {
        _ = try StringsFileReader().read(data, file: "Fuzz.strings")
    } catch {
        _ = error.description
    }
    return 0
}
