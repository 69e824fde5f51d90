import Foundation
import HuddleCore
import Testing

@Suite struct JSONTests {
    @Test func keepsTypesAndOrder() throws {
        let value = try JSONParser.parse(#"{"b": true, "a": 1, "c": 1.5, "d": "x\u00e9\n", "e": [null, -0, 1e2], "f": {}}"#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["b", "a", "c", "d", "e", "f"])
        #expect(object["b"] == .bool(true))
        #expect(object["a"] == .integer(1))
        #expect(object["c"] == .double(1.5))
        #expect(object["d"] == .string("xé\n"))
        #expect(object["e"] == .array([.null, .integer(0), .double(100)]))
    }

    @Test func roundTrips() throws {
        let text = #"{"emoji":"🍕","quote":"\"","control":"\u0001","nested":{"list":[1,2.5,false]}}"#
        let value = try JSONParser.parse(text)
        #expect(try JSONParser.parse(value.jsonText()) == value)
        #expect(try JSONParser.parse(value.jsonText(pretty: true)) == value)
        #expect(value.jsonText() == text)
    }

    @Test func surrogatePairs() throws {
        #expect(try JSONParser.parse(#""\ud83c\udf55""#) == .string("🍕"))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "line 1, column 9: expected a member name in double quotes, found '}'"),
        ("{\"a\": 1 \"b\": 2}", "line 1, column 9: expected ',' or '}' after a member, found '\"'"),
        ("[1, 2", "line 1, column 6: unexpected end of input inside an array: the JSON is truncated"),
        ("{\"a\": 1, \"a\": 2}", "line 1, column 10: duplicate key \"a\" in one object"),
        ("01", "line 1, column 2: a number must not have leading zeros"),
        ("\"tab\there\"", "line 1, column 5: control character byte 0x9 inside a string must be escaped"),
        ("\"\\x\"", "line 1, column 2: invalid escape \\x in a string"),
        ("\"\\ud83c\"", "line 1, column 8: unpaired UTF-16 surrogate in a \\u escape"),
        ("{}\n{}", "line 2, column 1: unexpected text after the end of the JSON value"),
        ("tru", "line 1, column 1: unexpected end of input: the JSON is truncated"),
        ("", "line 1, column 1: unexpected end of input: the JSON is truncated"),
    ])
    func refusesWithPosition(text: String, message: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.description == message) }
    }

    /// A duplicate is found wherever it is: among an object's first members (compared directly) and past them
    /// (hashed), including a late key that repeats an early one.
    @Test(arguments: [3, 16, 17, 40])
    func findsADuplicateKeyAtAnyPosition(members: Int) {
        let keys = (0..<members).map { "\"k\($0)\": \($0)" }
        let text = "{" + keys.joined(separator: ", ") + ", \"k1\": 0}"
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.message == "duplicate key \"k1\" in one object") }
        let distinct = "{" + keys.joined(separator: ", ") + ", \"k\(members)\": 0}"
        guard case .object(let object) = try? JSONParser.parse(distinct) else { Issue.record("distinct keys refused"); return }
        #expect(object.count == members + 1)
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func readerNamesKeyPaths() throws {
        let reader = JSONReader(try JSONParser.parse(#"{"aps": {"alert": {"loc-args": ["a", 2.5, {}]}}}"#))
        let arguments = try reader.member("aps").member("alert").member("loc-args").array()
        #expect(throws: JSONReadError(path: "aps.alert.loc-args[2]", message: "expected a string, found an object")) {
            try arguments[2].string()
        }
        #expect(throws: JSONReadError(path: "aps.alert.loc-args[1]", message: "expected an integer, found 2.5")) {
            try arguments[1].integer()
        }
        #expect(throws: JSONReadError(path: "aps.sound", message: "is missing")) { try reader.member("aps").member("sound") }
    }

    @Test(arguments: [
        ("2018-06-06T17:00:00Z", 1_528_304_400.0),
        ("2018-06-06T17:00:02.250Z", 1_528_304_402.25),
        ("2018-06-06T19:00:00+02:00", 1_528_304_400.0),
        ("1969-12-31T23:59:59Z", -1.0),
        ("2000-02-29T00:00:00Z", 951_782_400.0),
    ])
    func iso8601(text: String, seconds: Double) throws {
        let date = try #require(ISO8601.date(from: text))
        #expect(date.timeIntervalSince1970 == seconds)
        let written = ISO8601.string(from: date)
        #expect(ISO8601.date(from: written) == date)
    }

    @Test func iso8601WritesUTCWithMillisecondsOnlyWhenPresent() {
        #expect(ISO8601.string(from: .init(timeIntervalSince1970: 1_528_304_402)) == "2018-06-06T17:00:02Z")
        #expect(ISO8601.string(from: .init(timeIntervalSince1970: 1_528_304_402.5)) == "2018-06-06T17:00:02.500Z")
        #expect(ISO8601.date(from: "2018-13-01T00:00:00Z") == nil)
        #expect(ISO8601.date(from: "yesterday") == nil)
    }
}
