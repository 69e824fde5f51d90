import Foundation
import HTTPTypes
import Hummingbird

/// The languages a page is written in, as every page picks them: the language menu's choice, else the
/// browser's.
enum PageLanguages {
    /// The languages a page is written for: the query's `languages` (what the language menu chose), else
    /// the browser's `Accept-Language`.
    static func requested(by request: Request) -> [String] {
        if let chosen = request.uri.queryParameters["languages"] {
            let languages = chosen.split(separator: ",").prefix(maximum).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter(isLanguageTag)
            if !languages.isEmpty { return languages }
        }
        return accepted(by: request)
    }

    /// The browser's languages, most preferred first (`Accept-Language`, weights honoured). A stranger
    /// writes this header: only its first ``maximum`` entries are read, and only tags that look
    /// like language tags are kept.
    static func accepted(by request: Request) -> [String] {
        guard let header = request.headers[.acceptLanguage] else { return ["en"] }
        let weighted = header.split(separator: ",").prefix(maximum).enumerated().compactMap { index, item -> (String, Double, Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, isLanguageTag(tag) else { return nil }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag, weight, index)
        }
        let languages = weighted.filter { $0.1 > 0 }.sorted { ($0.1, -$0.2) > ($1.1, -$1.2) }.map(\.0)
        return languages.isEmpty ? ["en"] : languages
    }

    /// How many languages a page request may name.
    static let maximum = 16

    /// Whether a text can be a BCP 47 language tag: letters, digits and hyphens, as long as a real one
    /// (35 characters; `*` is not a language).
    static func isLanguageTag(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 35 && text.first!.isLetter
            && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }
}
