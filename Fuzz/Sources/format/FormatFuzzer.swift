import Foundation
import HuddleLocalization

/// Format templates and stringsdict expansion.
///
/// The input is a format, then (after the first zero byte) a `.stringsdict` file; without a zero byte the
/// whole input is both. The format goes through `FormatTemplate`, `BoundFormat` and `LocalizedEntry.bind`;
/// every entry of the stringsdict goes through `PluralFormat.checkExpansion`, then is bound with a few
/// argument lists under a few languages' rules and rendered.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let separator = bytes.firstIndex(of: 0)
    let formatBytes = separator.map { UnsafeBufferPointer(rebasing: bytes[..<$0]) } ?? bytes
    let fileBytes = separator.map { UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]) } ?? bytes

    let format = String(decoding: formatBytes, as: UTF8.self)
    if let template = try? FormatTemplate(format) {
        _ = template.conversions.count
    }
    if let bound = try? BoundFormat(format) {
        _ = bound.text
        _ = bound.render(Inputs.arguments[1], formatting: Inputs.formatting[0])
    }
    bindAndRender(.text(format))

    guard let entries = try? StringsdictReader().read(Data(buffer: fileBytes), file: "Fuzz.stringsdict") else {
        return 0
    }
    // A bounded number of entries, in a fixed order, so one input always does the same work.
    for key in entries.keys.sorted().prefix(16) {
        guard let entry = entries[key] else { continue }
        // The check an app registration makes before it stores an entry; binding must be safe either way.
        if case .plural(let format) = entry { _ = try? format.checkExpansion() }
        bindAndRender(entry)
    }
    return 0
}

private func bindAndRender(_ entry: LocalizedEntry) {
    for (rules, formatting) in zip(Inputs.rules, Inputs.formatting) {
        for arguments in Inputs.arguments {
            guard let bound = try? entry.bind(arguments: arguments, rules: rules) else { continue }
            _ = bound.render(arguments, formatting: formatting)
        }
    }
}

/// Built once: looking rules up and making a formatter are not what is being fuzzed.
private enum Inputs {
    static let languages = ["en", "ru", "ar", "pl", "ja"]
    static let rules = languages.map(PluralRules.cardinal(for:))
    static let formatting = languages.map(LocaleFormatting.init(identifier:))
    static let arguments: [[FormatArgument]] = [
        [],
        [.integer(1), .string("Anna"), .integer(2)],
        [.integer(0), .integer(5), .string("Teja")],
        [.integer(22), .string("Song"), .string("1.5"), .integer(-3)],
        [.string("1.0"), .string("x"), .integer(Int.max), .integer(Int.min), .string("1e3")],
    ]
}
