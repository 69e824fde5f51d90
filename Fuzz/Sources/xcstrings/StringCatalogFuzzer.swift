import Foundation
import HuddleLocalization

/// `StringCatalogReader` on arbitrary bytes; each entry it accepts is bound as a notification would be.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    // The linter's lenient read first: it must not fail where the strict read succeeds (checked below).
    let inspection = try? CatalogInspection.inspect(data, file: "Fuzz.xcstrings", language: "")
    for entry in inspection?.entries.prefix(64) ?? [] {
        _ = FormatSignature(entry.value).description
    }
    let catalog: StringCatalogReader.Catalog
    do {
        catalog = try StringCatalogReader().read(data, file: "Fuzz.xcstrings")
    } catch {
        _ = error.description
        return 0
    }
    guard let inspection, inspection.problems.isEmpty, inspection.sourceLanguage == catalog.sourceLanguage else {
        fatalError("the lenient read disagrees with the strict read of a valid String Catalog")
    }
    let rules = PluralRules.cardinal(for: "ru")
    var bound = 0
    for (_, table) in catalog.tables {
        for (_, entry) in table {
            guard bound < 64 else { return 0 }
            bound += 1
            _ = try? entry.bind(arguments: [.integer(3), .string("Anna"), .integer(1)], rules: rules)
        }
    }
    return 0
}
