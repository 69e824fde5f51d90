import Foundation

extension LintReport {
    /// The findings as clang and swiftc print diagnostics, one per line, so that Xcode's build log,
    /// editors and terminals pick them up: `file:line:column: error: message [rule-id]`. A finding
    /// without a line is printed `file: error: message [rule-id]`.
    public func clangText() -> String {
        findings.map { finding in
            "\(Self.location(of: finding)): \(finding.severity.rawValue): \(Self.oneLine(finding.message)) [\(finding.rule.id)]\n"
        }.joined()
    }

    /// The findings as GitHub Actions workflow commands, which annotate the files of a pull request:
    /// `::error file=…,line=…,col=…,title=…::message`. Notes become `notice` annotations.
    public func githubText() -> String {
        findings.map { finding in
            let command = switch finding.severity {
            case .error: "error"
            case .warning: "warning"
            case .note: "notice"
            }
            var properties = ["file=\(Self.escapeProperty(finding.file))"]
            if let line = finding.line { properties.append("line=\(line)") }
            if let column = finding.column { properties.append("col=\(column)") }
            properties.append("title=\(Self.escapeProperty("huddle lint: \(finding.rule.id)"))")
            return "::\(command) \(properties.joined(separator: ","))::\(Self.escapeData(finding.message))\n"
        }.joined()
    }

    private static func location(of finding: LintFinding) -> String {
        var text = finding.file
        if let line = finding.line {
            text += ":\(line)"
            if let column = finding.column { text += ":\(column)" }
        }
        return text
    }

    /// Messages quote strangers' text, which may hold line breaks; a diagnostic is one line.
    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }

    /// GitHub's escaping of a command's message.
    private static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    /// GitHub's escaping of a command's property value, where `:` and `,` separate.
    private static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
