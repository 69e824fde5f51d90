import Foundation

/// The template an activity type may declare (``ActivityType/template``), which the page draws its Lock
/// Screen presentation with: plain text lines with placeholders, never markup.
///
/// ```
/// Order {{attributes.order}}
/// {{contentState.status}} · arrives {{contentState.eta|relative}} ({{contentState.eta|time}})
/// ```
///
/// Each line of the template is a line of the presentation (blank ones are left out). A placeholder is
/// `{{path}}` or `{{path|formatter}}`: the path starts at `attributes` or `contentState` and goes down by
/// key (`contentState.driver.name`) or array index (`attributes.items.0`); the formatter is `text` (the
/// default: a string as it is, a number or boolean as JSON writes it, an object or array as compact JSON,
/// nothing for null or a missing key), or `time`, `date` or `relative` for a date, which ActivityKit
/// decodes from a number of seconds since 2001-01-01 (docs/push-types.md §2). Anything else between `{{`
/// and `}}`, or a `{{` never closed, stays as it is written, so that a mistake shows on the page.
///
/// Values are put in after the template is read, and never read again: a value holding `{{` or `<script>`
/// is text. The result is ``ActivityPresentation``, pieces of text and dates; pages escape the text (the
/// server) or set it as text (the script). Drawing is linear in the template's and the values' sizes and
/// bounded: at most ``maximumLines`` lines and ``maximumPlaceholders`` placeholders are read, each value
/// is cut at ``maximumValueScalars`` and the whole presentation at ``ActivityPresentation/maximumScalars``.
public struct ActivityTemplate: Sendable, Hashable {
    /// Lines drawn; a Lock Screen presentation has a handful.
    public static let maximumLines = 12
    /// Placeholders read; later ones are left as they are written.
    public static let maximumPlaceholders = 64
    /// Keys and indexes in one path (as deep as a declared schema may nest, and the root).
    public static let maximumPathLength = ActivitySchema.maximumDepth + 1
    /// What one value shows, in Unicode scalars.
    public static let maximumValueScalars = 256

    /// Where a placeholder's path starts.
    public enum Root: String, Sendable, Hashable {
        case attributes, contentState
    }

    /// How a placeholder's value is written.
    public enum Formatter: String, Sendable, Hashable, CaseIterable {
        case text, time, date, relative
    }

    /// One step of a path: a key, or an index into an array (a key made of digits is also tried as a key).
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int, key: String)
    }

    public enum Segment: Sendable, Hashable {
        case literal(String)
        case placeholder(root: Root, path: [Step], formatter: Formatter)
    }

    /// The template's lines, each a list of segments.
    public let lines: [[Segment]]

    /// Reads a template. It never fails: what is not a placeholder is text.
    /// - Complexity: O(n) in the template's length.
    public init(_ text: String) {
        var lines: [[Segment]] = []
        var placeholders = 0
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            guard lines.count < Self.maximumLines else { break }
            let segments = Self.segments(of: Substring(line), placeholders: &placeholders)
            if !segments.isEmpty { lines.append(segments) }
        }
        self.lines = lines
    }

    /// Splits a line at its placeholders, working on Unicode scalars: `{` and `}` are found as written,
    /// whatever combining marks follow them.
    private static func segments(of line: Substring, placeholders: inout Int) -> [Segment] {
        let scalars = line.unicodeScalars
        var segments: [Segment] = []
        var literal = String.UnicodeScalarView()
        var index = scalars.startIndex
        func flush() {
            if !literal.isEmpty { segments.append(.literal(String(literal))) }
            literal = String.UnicodeScalarView()
        }
        while index < scalars.endIndex {
            let next = scalars.index(after: index)
            guard scalars[index] == "{", next < scalars.endIndex, scalars[next] == "{", placeholders < maximumPlaceholders,
                let close = closing(in: scalars, from: scalars.index(after: next))
            else {
                literal.append(scalars[index])
                index = next
                continue
            }
            let inside = String(String.UnicodeScalarView(scalars[scalars.index(after: next)..<close]))
            let end = scalars.index(close, offsetBy: 2)
            if let placeholder = placeholder(inside) {
                placeholders += 1
                flush()
                segments.append(placeholder)
            } else {
                literal.append(contentsOf: scalars[index..<end])
            }
            index = end
        }
        flush()
        return segments
    }

    /// The index of the next `}}`, if it comes before another `{{`.
    private static func closing(in scalars: Substring.UnicodeScalarView, from start: Substring.UnicodeScalarView.Index) -> Substring.UnicodeScalarView.Index? {
        var index = start
        while index < scalars.endIndex {
            let next = scalars.index(after: index)
            guard next < scalars.endIndex else { return nil }
            if scalars[index] == "}", scalars[next] == "}" { return index }
            if scalars[index] == "{", scalars[next] == "{" { return nil }
            index = next
        }
        return nil
    }

    /// `contentState.eta|time` as a placeholder; nil when it is not one.
    private static func placeholder(_ text: String) -> Segment? {
        let parts = text.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var formatter = Formatter.text
        if parts.count == 2 {
            guard let named = Formatter(rawValue: parts[1]) else { return nil }
            formatter = named
        }
        let steps = parts[0].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard steps.count >= 2, steps.count <= maximumPathLength, let root = Root(rawValue: steps[0]),
            steps.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) && !$0.contains("{") && !$0.contains("}") })
        else { return nil }
        let path = steps.dropFirst().map { step -> Step in
            if step.utf8.count <= 6, step.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let index = Int(step) {
                return .index(index, key: step)
            }
            return .key(step)
        }
        return .placeholder(root: root, path: path, formatter: formatter)
    }

    /// The activity drawn with this template.
    public func presentation(attributes: JSONValue, contentState: JSONValue) -> ActivityPresentation {
        var builder = ActivityPresentation.Builder()
        for line in lines {
            var pieces: [ActivityPresentation.Piece] = []
            for segment in line {
                switch segment {
                case .literal(let text):
                    pieces.append(.text(text))
                case .placeholder(let root, let path, let formatter):
                    let value = Self.value(at: path, in: root == .attributes ? attributes : contentState)
                    pieces.append(Self.piece(value, formatter: formatter))
                }
            }
            guard builder.add(ActivityPresentation.Line(pieces: pieces)) else { break }
        }
        return builder.presentation
    }

    static func value(at path: [Step], in root: JSONValue) -> JSONValue? {
        var value = root
        for step in path {
            switch (step, value) {
            case (.key(let key), .object(let object)), (.index(_, let key), .object(let object)):
                guard let member = object[key] else { return nil }
                value = member
            case (.index(let index, _), .array(let elements)):
                guard index < elements.count else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }

    /// A value written by a formatter: a date for a date formatter given a number, else text.
    static func piece(_ value: JSONValue?, formatter: Formatter) -> ActivityPresentation.Piece {
        guard let value else { return .text("") }
        if let style = ActivityPresentation.DateStyle(rawValue: formatter.rawValue), let date = ActivityPresentation.date(from: value) {
            return .date(date, style)
        }
        return .text(text(value))
    }

    /// A value as text, cut at ``maximumValueScalars``.
    static func text(_ value: JSONValue) -> String {
        let text: String
        switch value {
        case .null: text = ""
        case .string(let string): text = string
        case .integer, .double, .bool: text = value.jsonText()
        case .array, .object:
            // A 4 KB content state at most (DeviceActivities.Configuration.maximumContentSize): cheap to write.
            text = value.jsonText()
        }
        guard text.unicodeScalars.count > maximumValueScalars else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(maximumValueScalars))) + "…"
    }
}
