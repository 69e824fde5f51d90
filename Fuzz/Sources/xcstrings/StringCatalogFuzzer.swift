import Foundation
import HuddleLocalization

/// `StringCatalogReader` on arbitrary bytes; each entry it accepts is bound as a notification would be.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let catalog: StringCatalogReader.Catalog
    do {
        catalog = try StringCatalogReader().read(data, file: "Fuzz.xcstrings")
    } catch {
        _ = error.description
        return 0
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
