import Foundation
import Hummingbird

/// The fields of an HTML form's body (`application/x-www-form-urlencoded`), as the pages' forms post them.
///
/// A stranger writes these bodies: they are read up to ``maximumBytes``, and only the first
/// ``maximumFields`` fields count. A field named twice keeps its first value.
struct FormBody {
    /// The largest form body read: the pages' forms send a name and a token or two.
    static let maximumBytes = 4096
    static let maximumFields = 16

    private var fields: [String: String] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&").prefix(Self.maximumFields) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), fields[name] == nil else { continue }
            fields[name] = parts.count == 2 ? Self.decode(parts[1]) ?? "" : ""
        }
    }

    subscript(name: String) -> String? { fields[name] }

    /// Whether a request's body is a form's.
    static func isForm(_ request: Request) -> Bool {
        request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") ?? false
    }

    /// Reads a request's form body; a body that does not say it is a form is refused, so that what
    /// ``SiteGuard`` lets through as JSON is never read as a form.
    static func read(_ request: Request) async throws -> FormBody {
        guard isForm(request) else {
            throw APIError(.unsupportedMediaType, "this route reads a form: send Content-Type: application/x-www-form-urlencoded")
        }
        return FormBody(String(buffer: try await request.collectBody(limit: maximumBytes)))
    }

    private static func decode(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
