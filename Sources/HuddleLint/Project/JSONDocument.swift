import Foundation
import HuddleCore
import HuddleLocalization

/// A JSON file being linted: its text, its parsed value, and the findings about it, which name key paths
/// until the end of the run, when one scan of the text turns every path into a line and column.
final class JSONDocument {
    typealias Path = [JSONLocator.PathComponent]

    private struct PendingFinding {
        var rule: LintRule
        var severity: LintSeverity?
        var path: Path
        var message: String
    }

    let displayPath: String
    let url: URL
    let bytes: [UInt8]
    let json: JSONValue
    /// What every finding about this document adds to its message (for a payload, the push type it was linted as).
    var context: String?
    private var pending: [PendingFinding] = []

    private init(displayPath: String, url: URL, bytes: [UInt8], json: JSONValue) {
        self.displayPath = displayPath
        self.url = url
        self.bytes = bytes
        self.json = json
    }

    /// Reads and parses a file.
    /// - Returns: the document, or the finding that says why it cannot be read.
    static func read(_ url: URL, displayPath: String) -> Result<JSONDocument, UnreadableInput> {
        let data: Data
        do {
            data = try BoundedFile.read(url, limit: JSONParser.maximumSize)
        } catch {
            return .failure(UnreadableInput(finding: LintFinding(.unreadableFile, file: displayPath, message: "cannot be read: \(error)")))
        }
        let bytes = [UInt8](data)
        do throws(JSONParseError) {
            return .success(JSONDocument(displayPath: displayPath, url: url, bytes: bytes, json: try JSONParser.parse(bytes)))
        } catch {
            return .failure(UnreadableInput(finding: LintFinding(
                    .unreadableFile, file: displayPath, line: error.line, column: error.column,
                    message: "not valid JSON: \(error.message)")))
        }
    }

    /// A key path as ``JSONReader`` writes it (`aps.alert.loc-args[1]`, `apps.com.example.chat.categories`),
    /// read against this document under `prefix`.
    func path(_ text: String, under prefix: Path = []) -> Path {
        prefix + JSONLocator.components(of: text, in: json.value(at: prefix))
    }

    /// Records a finding at a key path of this document.
    func report(_ rule: LintRule, severity: LintSeverity? = nil, at path: Path, _ message: String) {
        pending.append(PendingFinding(rule: rule, severity: severity, path: path, message: message))
    }

    /// The findings recorded so far, located. O(n) in the size of the text, once for all of them.
    func locatedFindings() -> [LintFinding] {
        guard !pending.isEmpty else { return [] }
        let locations = JSONLocator(bytes).locate(pending.map(\.path))
        return zip(pending, locations).map { finding, location in
            LintFinding(
                finding.rule, severity: finding.severity, file: displayPath, line: location?.line, column: location?.column,
                message: context.map { "\(finding.message) \($0)" } ?? finding.message)
        }
    }
}
