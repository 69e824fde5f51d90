public import Foundation

/// What a Live Activity's Lock Screen card shows: lines of text and dates, drawn with its type's template
/// (``ActivityTemplate``), or, without one, a tidy list of its attributes and content state, key by key.
///
/// Only text and dates, never markup: the server's page escapes each text, the page's script sets it as
/// text, and a date is written by whoever shows it (a time of day, a date, "in 5 min"), in the viewer's
/// language and clock.
public struct ActivityPresentation: Sendable, Hashable {
    /// Unicode scalars one presentation shows at most; what follows is cut.
    public static let maximumScalars = 2_000

    public enum DateStyle: String, Sendable, Hashable, CaseIterable {
        /// The time of day.
        case time
        /// The day.
        case date
        /// How long until or since ("in 5 min", "2 hr ago").
        case relative
    }

    public enum Piece: Sendable, Hashable {
        case text(String)
        case date(Date, DateStyle)
    }

    public struct Line: Sendable, Hashable {
        /// The key a fallback row shows (`eta`); nil on a template's lines.
        public var label: String?
        public var pieces: [Piece]

        public init(label: String? = nil, pieces: [Piece]) {
            self.label = label
            self.pieces = pieces
        }
    }

    public var lines: [Line]

    public init(lines: [Line]) {
        self.lines = lines
    }

    /// The activity as its type draws it: with its template when it declares one, else key by key, a key
    /// its schema declares a `date` written as a time.
    public init(_ activity: LiveActivity, type: ActivityType?) {
        if let template = type?.parsedTemplate {
            self = template.presentation(attributes: activity.attributes, contentState: activity.contentState)
            return
        }
        var builder = Builder()
        for (value, schema) in [(activity.attributes, type?.attributes), (activity.contentState, type?.contentState)] {
            guard case .object(let object) = value else { continue }
            for (key, member) in object {
                let declared = schema?.fields.first { $0.name == key }?.type
                let piece = declared == .date ? ActivityTemplate.piece(member, formatter: .time) : .text(ActivityTemplate.text(member))
                guard builder.add(Line(label: ActivityTemplate.text(.string(key)), pieces: [piece])) else {
                    self = builder.presentation
                    return
                }
            }
        }
        self = builder.presentation
    }

    /// A date as ActivityKit decodes one by default: a number of seconds since 2001-01-01 00:00 UTC; nil
    /// for anything else, or a date before 1970 or after 9999, which ISO 8601's four-digit years and the
    /// page's script do not write.
    public static func date(from value: JSONValue) -> Date? {
        let seconds: Double
        switch value {
        case .integer(let integer): seconds = Double(integer)
        case .double(let double): seconds = double
        default: return nil
        }
        guard seconds.isFinite else { return nil }
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        guard date.timeIntervalSince1970 >= 0, date.timeIntervalSince1970 < 253_402_300_800 else { return nil }
        return date
    }

    /// Collects lines up to ``ActivityTemplate/maximumLines`` and ``maximumScalars``.
    struct Builder {
        private(set) var presentation = ActivityPresentation(lines: [])
        private var scalars = 0

        /// Adds a line, cut when it would pass the bounds.
        /// - Returns: whether another line may follow.
        mutating func add(_ line: Line) -> Bool {
            guard presentation.lines.count < ActivityTemplate.maximumLines, scalars < ActivityPresentation.maximumScalars else { return false }
            var kept = Line(label: line.label.map { cut($0) }, pieces: [])
            for piece in line.pieces {
                guard scalars < ActivityPresentation.maximumScalars else { break }
                switch piece {
                case .text(let text):
                    let cutText = cut(text)
                    if !cutText.isEmpty { kept.pieces.append(.text(cutText)) }
                case .date:
                    kept.pieces.append(piece)
                    scalars += 8
                }
            }
            if !kept.pieces.isEmpty || kept.label != nil { presentation.lines.append(kept) }
            return scalars < ActivityPresentation.maximumScalars
        }

        /// The text as far as there is room for it (with "…" when cut), counted against the bound.
        private mutating func cut(_ text: String) -> String {
            let room = ActivityPresentation.maximumScalars - scalars
            let count = text.unicodeScalars.count
            guard count > room else {
                scalars += count
                return text
            }
            scalars = ActivityPresentation.maximumScalars
            return String(String.UnicodeScalarView(text.unicodeScalars.prefix(room))) + "…"
        }
    }
}

extension ActivityPresentation {
    /// `{"lines": [{"label"?, "pieces": [{"text"} | {"date", "style"}]}]}`, dates in ISO 8601.
    public var json: JSONValue {
        .object(JSONObject([
            ("lines", .array(lines.map { line in
                var object = JSONObject()
                object["label"] = line.label.map(JSONValue.string)
                object["pieces"] = .array(line.pieces.map { piece in
                    switch piece {
                    case .text(let text): .object(JSONObject([("text", .string(text))]))
                    case .date(let date, let style): .object(JSONObject([("date", .string(ISO8601.string(from: date))), ("style", .string(style.rawValue))]))
                    }
                })
                return .object(object)
            }))
        ]))
    }
}
