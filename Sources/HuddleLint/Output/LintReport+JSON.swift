import Foundation
public import HuddleCore

extension LintReport {
    /// The findings as JSON, described by `docs/lint-output.schema.json`:
    /// `{"version": 1, "summary": {…}, "findings": [{"rule", "severity", "file", "line", "column", "message"}]}`;
    /// `line` and `column` are null when unknown.
    public func jsonDocument() -> JSONValue {
        .object(JSONObject([
            ("version", 1),
            ("summary", .object(JSONObject([
                ("files", .integer(Int64(fileCount))),
                ("errors", .integer(Int64(count(of: .error)))),
                ("warnings", .integer(Int64(count(of: .warning)))),
                ("notes", .integer(Int64(count(of: .note)))),
            ]))),
            ("findings", .array(findings.map { finding in
                .object(JSONObject([
                    ("rule", .string(finding.rule.id)),
                    ("severity", .string(finding.severity.rawValue)),
                    ("file", .string(finding.file)),
                    ("line", finding.line.map { .integer(Int64($0)) } ?? .null),
                    ("column", finding.column.map { .integer(Int64($0)) } ?? .null),
                    ("message", .string(finding.message)),
                ]))
            })),
        ]))
    }

    /// The findings as a SARIF 2.1.0 log, for GitHub code scanning and other SARIF viewers: one run of the
    /// tool `huddle`, every rule described, each finding a result with its level and physical location.
    /// Relative paths are URIs relative to `%SRCROOT%` (the checkout), absolute ones `file://` URIs;
    /// columns count Unicode code points.
    public func sarifDocument() -> JSONValue {
        let rules = LintRule.allCases
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1, $0) })
        let ruleDescriptions: [JSONValue] = rules.map { rule in
            .object(JSONObject([
                ("id", .string(rule.id)),
                ("name", .string(Self.pascalCase(rule.id))),
                ("shortDescription", .object(JSONObject([("text", .string(rule.summary))]))),
                ("defaultConfiguration", .object(JSONObject([("level", .string(rule.defaultSeverity.rawValue))]))),
            ]))
        }
        let results: [JSONValue] = findings.map { finding in
            var physicalLocation = JSONObject([("artifactLocation", Self.artifactLocation(finding.file))])
            if let line = finding.line {
                var region = JSONObject([("startLine", .integer(Int64(line)))])
                if let column = finding.column { region["startColumn"] = .integer(Int64(column)) }
                physicalLocation["region"] = .object(region)
            }
            return .object(JSONObject([
                ("ruleId", .string(finding.rule.id)),
                ("ruleIndex", .integer(Int64(ruleIndex[finding.rule] ?? 0))),
                ("level", .string(finding.severity.rawValue)),
                ("message", .object(JSONObject([("text", .string(finding.message))]))),
                ("locations", .array([.object(JSONObject([("physicalLocation", .object(physicalLocation))]))])),
            ]))
        }
        let run: JSONValue = .object(JSONObject([
            ("tool", .object(JSONObject([
                ("driver", .object(JSONObject([
                    ("name", "huddle"),
                    ("fullName", "huddle lint"),
                    ("rules", .array(ruleDescriptions)),
                ]))),
            ]))),
            ("columnKind", "unicodeCodePoints"),
            ("results", .array(results)),
        ]))
        return .object(JSONObject([
            ("$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"),
            ("version", "2.1.0"),
            ("runs", .array([run])),
        ]))
    }

    private static func artifactLocation(_ file: String) -> JSONValue {
        // A colon in a relative path's first segment would read as a URI scheme: encode every colon.
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: ";:"))
        let encoded = file.addingPercentEncoding(withAllowedCharacters: allowed) ?? file
        if file.hasPrefix("/") {
            return .object(JSONObject([("uri", .string("file://" + encoded))]))
        }
        return .object(JSONObject([("uri", .string(encoded)), ("uriBaseId", "%SRCROOT%")]))
    }

    /// `plural-missing-category` → `PluralMissingCategory`, SARIF's readable rule name.
    private static func pascalCase(_ id: String) -> String {
        id.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
