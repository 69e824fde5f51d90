import Foundation
import HuddleCore
import Testing

/// The templates activity types draw their Lock Screen cards with: placeholders and formatters, dates as
/// ActivityKit decodes them, and hostile templates and values kept as text, bounded, in linear time.
@Suite struct ActivityTemplateTests {
    static let attributes: JSONValue = ["order": "A-17", "items": ["tea", "cake"], "shop": ["name": "Corner Café"]]
    /// 2026-01-01 12:30:00 UTC, in seconds since 2001 as ActivityKit's decoder reads it.
    static let eta = 788_963_400.0
    static let contentState: JSONValue = ["status": "On its way", "eta": .double(eta), "stops": 3, "late": false, "note": .null]

    static func draw(_ template: String, attributes: JSONValue = attributes, contentState: JSONValue = contentState) -> ActivityPresentation {
        ActivityTemplate(template).presentation(attributes: attributes, contentState: contentState)
    }

    /// The presentation as text, dates as `[style ISO]`, lines joined by newlines.
    static func text(_ presentation: ActivityPresentation) -> String {
        presentation.lines.map { line in
            (line.label.map { "\($0): " } ?? "") + line.pieces.map { piece in
                switch piece {
                case .text(let text): text
                case .date(let date, let style): "[\(style.rawValue) \(ISO8601.string(from: date))]"
                }
            }.joined()
        }.joined(separator: "\n")
    }

    @Test(arguments: [
        ("Order {{attributes.order}}", "Order A-17"),
        ("{{ contentState.status }} · {{contentState.stops}} stops", "On its way · 3 stops"),
        ("{{attributes.shop.name}} / {{attributes.items.1}}", "Corner Café / cake"),
        ("late: {{contentState.late}}; note: [{{contentState.note}}]; none: [{{contentState.missing}}]", "late: false; note: []; none: []"),
        ("{{attributes.items}}", #"["tea","cake"]"#),
        ("ETA {{contentState.eta|time}}", "ETA [time 2026-01-01T12:30:00Z]"),
        ("{{contentState.eta | relative}} on {{contentState.eta|date}}", "[relative 2026-01-01T12:30:00Z] on [date 2026-01-01T12:30:00Z]"),
        // A date formatter given what is not a number writes it as text.
        ("{{contentState.status|time}}", "On its way"),
        ("{{contentState.eta|text}}", "788963400"),
        ("first\n\n  second\r\nthird", "first\n  second\nthird"),
    ])
    func placeholdersAreFilled(template: String, expected: String) {
        #expect(Self.text(Self.draw(template)) == expected)
    }

    @Test(arguments: [
        "{{attributes}}", "{{order}}", "{{state.eta}}", "{{contentState.eta|html}}", "{{contentState..eta}}", "{{ contentState.eta | time | x }}",
        "{{contentState.eta", "{{contentState.{{eta}}}}", "}}{{", "{{}}", "{{contentState. eta}}",
    ])
    func whatIsNotAPlaceholderStaysAsWritten(template: String) {
        // Nothing to fill: the text comes back whole, a mistake visible on the page.
        #expect(Self.text(Self.draw(template)) == template)
    }

    @Test func valuesAreTextAndNeverReadAgain() {
        // A value that looks like a placeholder or markup stays as it came, once: it is never parsed.
        let state: JSONValue = [
            "status": "{{attributes.order}}<\u{301}script>alert(1)</script>", "eta": "{{contentState.eta|time}}",
        ]
        let drawn = Self.draw("{{contentState.status}} {{contentState.eta}}", contentState: state)
        #expect(drawn.lines == [ActivityPresentation.Line(pieces: [
            .text("{{attributes.order}}<\u{301}script>alert(1)</script>"), .text(" "), .text("{{contentState.eta|time}}"),
        ])])
    }

    @Test func braceWithACombiningMarkIsNotAPlaceholder() {
        // "{" then U+0301 is one Character; the template is read by Unicode scalar, so "{\u{301}{" opens nothing.
        #expect(Self.text(Self.draw("{\u{301}{attributes.order}}")) == "{\u{301}{attributes.order}}")
        #expect(Self.text(Self.draw("{{attributes.order}\u{301}}")) == "{{attributes.order}\u{301}}")
    }

    @Test func datesAreSecondsSince2001AndOutOfRangeOnesAreText() {
        #expect(ActivityPresentation.date(from: .integer(0)) == Date(timeIntervalSince1970: 978_307_200))
        #expect(ActivityPresentation.date(from: .double(-978_307_201)) == nil)  // before 1970
        #expect(ActivityPresentation.date(from: .double(1e300)) == nil)
        #expect(ActivityPresentation.date(from: .string("2026-01-01T12:30:00Z")) == nil)
        #expect(Self.text(Self.draw("{{contentState.eta|time}}", contentState: ["eta": 1e300])) == "1e+300")
    }

    @Test func withoutATemplateTheKeysAreListedAndDeclaredDatesAreTimes() throws {
        let type = try ActivityType(
            name: "Delivery", contentState: ActivitySchema(json: ["status": "string", "eta": "date", "stops": "integer", "late": "bool", "note": "string?"]))
        let activity = LiveActivity(
            id: "a", app: "com.example.food", typeName: "Delivery", attributes: Self.attributes, contentState: Self.contentState,
            timestamp: Date(timeIntervalSince1970: 1), startedAt: Date(timeIntervalSince1970: 1))
        #expect(Self.text(ActivityPresentation(activity, type: type)).components(separatedBy: "\n") == [
            "order: A-17", #"items: ["tea","cake"]"#, #"shop: {"name":"Corner Café"}"#, "status: On its way",
            "eta: [time 2026-01-01T12:30:00Z]", "stops: 3", "late: false", "note: ",
        ])
        // An undeclared type: numbers stay numbers.
        #expect(Self.text(ActivityPresentation(activity, type: nil)).contains("eta: 788963400"))
        // A declared template is used instead.
        let drawn = try ActivityType(name: "Delivery", template: "Order {{attributes.order}}")
        #expect(Self.text(ActivityPresentation(activity, type: drawn)) == "Order A-17")
    }

    @Test func hugeTemplatesAndValuesAreBounded() {
        // 8 KB of placeholders: only the first 64 are read, the rest stay as written; and everything is cut.
        let many = String(repeating: "{{contentState.status}}", count: 350)
        let drawn = Self.draw(many, contentState: ["status": .string(String(repeating: "é", count: 10_000))])
        let scalars = drawn.lines.flatMap(\.pieces).reduce(0) { count, piece in
            if case .text(let text) = piece { return count + text.unicodeScalars.count }
            return count
        }
        #expect(scalars <= ActivityPresentation.maximumScalars + 1)
        if case .text(let first)? = drawn.lines.first?.pieces.first {
            #expect(first.unicodeScalars.count == ActivityTemplate.maximumValueScalars + 1 && first.hasSuffix("…"))
        }
        // Lines past the limit are not drawn.
        #expect(Self.draw(String(repeating: "line\n", count: 1000)).lines.count == ActivityTemplate.maximumLines)
        // A path deeper than a schema may nest is not a placeholder.
        let deep = "{{attributes" + String(repeating: ".a", count: ActivityTemplate.maximumPathLength) + "}}"
        #expect(Self.text(Self.draw(deep)) == deep)
    }

    @Test(.timeLimit(.minutes(1)))
    func hostileTemplatesTakeLinearTime() {
        // Openings without closings, closings without openings, nested openings: each read once.
        for unit in ["{{", "{{contentState.", "}}", "{{{", "{{a}", "{{contentState.status|", "{\u{301}{"] {
            let template = String(repeating: unit, count: ActivityType.maximumTemplateSize / unit.utf8.count)
            let start = ContinuousClock.now
            _ = Self.draw(template)
            #expect(ContinuousClock.now - start < .seconds(2), "\(unit)")
        }
        // Deeply nested values: writing one is bounded by the content's size.
        var nested: JSONValue = "deep"
        for _ in 0..<200 { nested = .array([nested]) }
        let drawn = Self.draw("{{contentState.x}}", contentState: .object(JSONObject([("x", nested)])))
        #expect(Self.text(drawn).hasPrefix("[[[[") && Self.text(drawn).hasSuffix("…"))
    }

    @Test func thePresentationAsJSON() {
        let drawn = Self.draw("Order {{attributes.order}}\nETA {{contentState.eta|time}}")
        #expect(drawn.json.jsonText() == #"{"lines":[{"pieces":[{"text":"Order "},{"text":"A-17"}]},{"pieces":[{"text":"ETA "},{"date":"2026-01-01T12:30:00Z","style":"time"}]}]}"#)
    }
}
