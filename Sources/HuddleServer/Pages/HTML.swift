import Mustache

/// The one HTML escaper of the pages: every template variable and every string a page builds goes through it.
enum HTML {
    /// Text made safe for HTML, in an element or a quoted attribute.
    ///
    /// It works on UTF-8 bytes, never on `Character`s: a grapheme cluster can hold `<`, `>` or `"` together
    /// with a mark before it (U+0600) or after it (U+0301), and such a cluster compares unequal to `"<"`
    /// although the browser still reads a `<`. The five bytes escaped are ASCII, and ASCII bytes never occur
    /// inside a multi-byte UTF-8 sequence, so each one found is that character.
    static func escape(_ text: String) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// The templates' content type: Mustache's own HTML type escapes by `Character`, which the clusters
    /// above get through. ``WebPages`` puts the pragma that selects this one at the top of every template.
    struct ContentType: MustacheContentType {
        static let name = "HUDDLE_HTML"
        static let pragma = "{{% CONTENT_TYPE: \(name)}}"

        func escapeText(_ text: String) -> String { HTML.escape(text) }
    }
}
