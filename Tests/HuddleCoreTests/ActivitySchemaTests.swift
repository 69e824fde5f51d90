import Foundation
import HuddleCore
import Testing

/// Declared keys, and decoding as ActivityKit's default JSONDecoder does (docs/push-types.md §2).
@Suite struct ActivitySchemaTests {
    static let now = Date(timeIntervalSince1970: 1_760_000_000)

    static func schema(_ text: String) throws -> ActivitySchema {
        try ActivitySchema(json: JSONParser.parse(text))
    }

    static let delivery = try! schema("""
        {"eta": "date", "driver": "string?", "stops": "integer", "speed": "number", "late": "bool",
         "position?": {"lat": "number", "lon": "number"}, "items": ["string"]}
        """)

    /// The first failure, and the notes, of checking `text` against `delivery`.
    static func check(_ text: String, against schema: ActivitySchema = delivery) throws -> (String?, [ActivityNote]) {
        var notes: [ActivityNote] = []
        let failure = schema.check(try JSONParser.parse(text), at: "aps.content-state", now: now, notes: &notes)
        return (failure?.description, notes)
    }

    static let valid = #""eta": 813000000, "stops": 3, "speed": 12, "late": false, "items": ["pizza"]"#

    @Test func theNotationReadsTypesOptionalsNestingAndArraysAndWritesItBack() throws {
        let fields = Self.delivery.fields
        #expect(fields.map(\.name) == ["eta", "driver", "stops", "speed", "late", "position", "items"])
        #expect(fields[1] == ActivityField(name: "driver", type: .string, isOptional: true))
        #expect(fields[5].isOptional)
        #expect(fields[6].type == .array(.string))
        #expect(try ActivitySchema(json: Self.delivery.json) == Self.delivery)
    }

    @Test(arguments: [
        (#"{"eta": "time"}"#, "eta: unknown type \"time\""),
        (#"{"eta": 3}"#, "eta: expected a type name, an object or a one-element array, found a number"),
        (#"{"eta": ["string", "integer"]}"#, "eta: expected a type name"),
        (#"{"eta": ["string?"]}"#, "eta[0]: an array element cannot be optional"),
        (#"{"?": "string"}"#, "a key name must have 1 to 256 bytes"),
        (#"[]"#, "expected an object of key → type, found an array"),
    ])
    func aWrongDeclarationIsRefusedWithItsPath(text: String, message: String) throws {
        #expect { try Self.schema(text) } throws: { "\($0)".contains(message) }
    }

    @Test func declarationsAreBoundedInKeysAndDepth() throws {
        let many = "{" + (0...ActivitySchema.maximumFields).map { "\"k\($0)\": \"string\"" }.joined(separator: ",") + "}"
        #expect { try Self.schema(many) } throws: { ($0 as? ActivityError)?.code == .tooLarge }
        let deep = String(repeating: #"{"a": "#, count: 9) + #""string""# + String(repeating: "}", count: 9)
        #expect { try Self.schema(deep) } throws: { "\($0)".contains("nested deeper than 8 levels") }
        let arrays = #"{"a": "# + String(repeating: "[", count: 8) + #""string""# + String(repeating: "]", count: 8) + "}"
        #expect { try Self.schema(arrays) } throws: { ($0 as? ActivityError)?.code == .tooLarge }
    }

    @Test func aPayloadWithEveryKeyRightDecodesWithoutNotes() throws {
        let (failure, notes) = try Self.check("{\(Self.valid), \"driver\": \"Ann\", \"position\": {\"lat\": 1, \"lon\": 2.5}}")
        #expect(failure == nil)
        #expect(notes.isEmpty)
    }

    @Test func optionalsMayBeMissingOrNull() throws {
        #expect(try Self.check("{\(Self.valid)}").0 == nil)
        #expect(try Self.check("{\(Self.valid), \"driver\": null, \"position\": null}").0 == nil)
    }

    @Test func aMissingKeyIsNamedAsTheDecoderWouldFailOnIt() throws {
        #expect(try Self.check(#"{"stops": 3}"#).0 == "content-state has no `eta`")
        #expect(try Self.check("{\(Self.valid), \"position\": {\"lat\": 1}}").0 == "content-state.position has no `lon`")
        #expect(try Self.check("{\(Self.valid.replacingOccurrences(of: "\"late\": false", with: "\"late\": null"))}").0
            == "`late` in content-state is null, and it is not optional")
    }

    @Test(arguments: [
        ("stops", #""3""#, "content-state.stops: expected an integer, found a string"),
        ("stops", "3.5", "content-state.stops: expected an integer, found a number"),
        ("late", "0", "content-state.late: expected a boolean, found a number"),
        ("eta", #""2026-01-01T10:00:00Z""#, "content-state.eta: expected a date: a number of seconds since 2001-01-01, found a string"),
        ("items", #"["pizza", 2]"#, "content-state.items[1]: expected a string, found a number"),
        ("position", #"[1, 2]"#, "content-state.position: expected an object, found an array"),
    ])
    func aValueOfAnotherTypeDoesNotDecode(key: String, value: String, message: String) throws {
        guard case .object(var object) = try JSONParser.parse("{\(Self.valid)}") else { return }
        object[key] = try JSONParser.parse(value)
        #expect(try Self.check(JSONValue.object(object).jsonText()).0 == message)
    }

    @Test func numbersDecodeAsTheSwiftTypesDo() throws {
        // Int takes a whole number written with a fraction; Double takes an integer.
        #expect(try Self.check(#"{"eta": 8e8, "stops": 3.0, "speed": 7, "late": true, "items": []}"#).0 == nil)
    }

    @Test func anUndeclaredKeyIsIgnoredAndNotedWithTheKeyItLikelyMeant() throws {
        let (failure, notes) = try Self.check("{\(Self.valid), \"Driver\": \"Ann\", \"colour\": 1}")
        #expect(failure == nil)
        #expect(notes.map(\.path) == ["aps.content-state.Driver", "aps.content-state.colour"])
        #expect(notes[0].message.contains("did you mean `driver`?"))
        #expect(notes.allSatisfy { $0.kind == .undeclaredKey })
    }

    @Test func aDateInSecondsSince1970DecodesAndIsNotedAs31YearsLate() throws {
        let (failure, notes) = try Self.check("{\(Self.valid.replacingOccurrences(of: "813000000", with: "1760003600"))}")
        #expect(failure == nil)
        #expect(notes.map(\.kind) == [.dateInUnixSeconds])
        #expect(notes[0].path == "aps.content-state.eta")
        #expect(notes[0].message.contains("2025-10-09") && notes[0].message.contains("2056-10-09"))
    }

    @Test func aDateInMillisecondsIsNotedToo() throws {
        let (_, notes) = try Self.check("{\(Self.valid.replacingOccurrences(of: "813000000", with: "1760003600000"))}")
        #expect(notes.map(\.kind) == [.dateInUnixMilliseconds])
        // 1,760,003,600 seconds after 2001 read as milliseconds... the other way: 1.76e12 s from 2001 is year 57,773.
        #expect(notes[0].message.hasSuffix("shows a date in the year 57773"))
    }

    /// A number that is no date in either reading is noted as neither (it used to be "in the year 506713").
    @Test(arguments: ["1e300", "1.7976931348623157e308", "99999999999999999999"])
    func aNumberThatIsNoDateGetsNoNote(number: String) throws {
        let (failure, notes) = try Self.check("{\(Self.valid.replacingOccurrences(of: "813000000", with: number))}")
        #expect(failure == nil)
        #expect(notes.isEmpty)
    }

    @Test func aDateInSecondsSince2001HasNoNote() throws {
        // 2026-10-09 read from 2001: what a default JSONEncoder writes for a date near `now`.
        let reference = Int(Self.now.timeIntervalSinceReferenceDate) + 3600
        #expect(try Self.check("{\(Self.valid.replacingOccurrences(of: "813000000", with: String(reference)))}").1.isEmpty)
    }
}
