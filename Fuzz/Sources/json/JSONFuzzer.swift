import HuddleCore

/// `JSONParser.parse` on arbitrary bytes; what it accepts must write back (plain and pretty) into text that
/// parses to the same document.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    // Every member of the top object, and its first element or member one level down, is found.
    var paths: [[JSONLocator.PathComponent]] = [[]]
    if case .object(let object) = value {
        for member in object.members.prefix(32) {
            paths.append([.key(member.key)])
            switch member.value {
            case .array(let elements) where !elements.isEmpty: paths.append([.key(member.key), .index(0)])
            case .object(let inner) where !inner.isEmpty: paths.append([.key(member.key), .key(inner.members[0].key)])
            default: break
            }
        }
    }
    let locations = JSONLocator(Array(bytes)).locate(paths)
    guard locations.allSatisfy({ ($0?.line ?? 0) >= 1 && ($0?.column ?? 0) >= 1 }) else {
        fatalError("a path of a valid document was not located: \(paths) → \(locations)")
    }
    for pretty in [false, true] {
        let written = value.jsonUTF8(pretty: pretty)
        let reread: JSONValue
        do {
            reread = try JSONParser.parse(written)
        } catch {
            fatalError("written JSON does not parse again (\(error)): \(String(decoding: written, as: UTF8.self))")
        }
        guard equivalent(value, reread) else {
            fatalError("written JSON reads back differently: \(String(decoding: written, as: UTF8.self))")
        }
    }
    return 0
}

/// Equal documents, except that a number may change between integer and double (the writer prints 1.0 as 1).
private func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): return Double(x) == y
    case (.double(let x), .double(let y)): return x == y
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(equivalent)
    case (.object(let x), .object(let y)):
        return x.count == y.count && zip(x.members, y.members).allSatisfy { $0.key == $1.key && equivalent($0.value, $1.value) }
    default: return a == b
    }
}
