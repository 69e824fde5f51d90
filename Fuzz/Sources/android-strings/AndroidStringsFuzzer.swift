import Foundation
import HuddleLocalization

/// Android string resources from arbitrary bytes: a file either reads or throws a located error; every string it
/// reads formats with a few arguments (or gives nil) without trapping, and a plural always has its `other` form.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    guard let resources = try? AndroidStringResources.read(data, file: "values/strings.xml") else { return 0 }
    for text in resources.strings.values {
        _ = AndroidStringResources.format(text, arguments: ["a", "b"])
    }
    precondition(resources.plurals.values.allSatisfy { $0[.other] != nil })
    // The same bytes as a folder's file, looked up for a language.
    if let set = try? AndroidResourceSet(files: ["values-de/strings.xml": data]), let name = resources.strings.keys.first {
        precondition(set.string(name, languages: ["de-AT"]) == resources.strings[name])
    }
    return 0
}
