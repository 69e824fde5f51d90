extension LintReport {
    /// The findings as a JUnit XML report, which most CI systems (GitLab, Jenkins, Azure, CircleCI) show as
    /// test results: one test case per finding, failed when it is at least as severe as `failOn` (`nil`:
    /// none fails), named by its rule and place; a run without findings is one passing case, so that the
    /// check still shows.
    public func junitText(failOn: LintSeverity?) -> String {
        let failing = findings.filter { finding in failOn.map { finding.severity >= $0 } ?? false }
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let cases = max(findings.count, 1)
        text += #"<testsuites name="huddle lint" tests="\#(cases)" failures="\#(failing.count)">"# + "\n"
        text += #"<testsuite name="huddle lint" tests="\#(cases)" failures="\#(failing.count)">"# + "\n"
        if findings.isEmpty {
            text += #"<testcase classname="huddle lint" name="\#(Self.xmlEscaped(summaryLine))"/>"# + "\n"
        }
        for finding in findings {
            var place = finding.file
            if let line = finding.line { place += ":\(line)" + (finding.column.map { ":\($0)" } ?? "") }
            let name = Self.xmlEscaped("\(finding.rule.id) at \(place)")
            text += #"<testcase classname="\#(Self.xmlEscaped(finding.file))" name="\#(name)">"#
            let message = Self.xmlEscaped(finding.message)
            if failOn.map({ finding.severity >= $0 }) ?? false {
                text += #"<failure type="\#(finding.severity.rawValue)" message="\#(message)">\#(message)</failure>"#
            } else {
                text += "<system-out>\(finding.severity.rawValue): \(message)</system-out>"
            }
            text += "</testcase>\n"
        }
        return text + "</testsuite>\n</testsuites>\n"
    }

    /// Text for an XML attribute or element, by Unicode scalar: the five markup characters as entities, and
    /// the characters XML 1.0 cannot hold at all (most C0 controls, U+FFFE, U+FFFF) as U+FFFD, so that no
    /// stranger's message can end the report or make it unreadable.
    static func xmlEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped += "&#\(scalar.value);"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: escaped.unicodeScalars.append("\u{FFFD}")
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
