public import Foundation

/// The keys an app declares for an activity type's attributes or content state, with the JSON each holds,
/// so that Huddle can decode a payload as ActivityKit would and say why one does not decode.
///
/// ActivityKit decodes `content-state` with `JSONDecoder`'s default strategies (docs/push-types.md §2):
/// key names equal to the Swift property names, optionals that may be missing or `null`, unknown keys
/// ignored, and dates as seconds since 2001-01-01. ``check(_:at:now:notes:)`` applies exactly those rules.
///
/// Written in JSON as an object of key → type: `"string"`, `"integer"`, `"number"`, `"bool"`, `"date"`,
/// `"any"`, a nested object, or a one-element array for an array of that type. A `?` after the type name
/// (`"string?"`) or after the key (`"position?": {…}`) makes the key optional, as `String?` does in Swift.
public struct ActivitySchema: Sendable, Hashable {
    /// Keys one object may declare; a ContentState has a handful.
    public static let maximumFields = 64
    /// Objects and arrays nested in one another; deeper declarations are refused.
    public static let maximumDepth = 8
    /// The longest key name, in bytes.
    public static let maximumKeyLength = 256

    public var fields: [ActivityField]

    public init(fields: [ActivityField]) {
        self.fields = fields
    }

    /// Reads the JSON notation described on the type.
    /// - Throws: ``ActivityError`` naming the key path of the first wrong declaration, or a bound exceeded.
    public init(json: JSONValue, path: String = "") throws(ActivityError) {
        self = try Self.parseObject(json, path: path, depth: 1)
    }

    /// The declaration back in its JSON notation, for storage and the device API.
    public var json: JSONValue {
        .object(JSONObject(fields.map { field in
            // A scalar carries its `?` in the type name; an object or array has only the key to carry it.
            switch field.type {
            case .object, .array: (key: field.isOptional ? field.name + "?" : field.name, value: field.type.json(optional: false))
            default: (key: field.name, value: field.type.json(optional: field.isOptional))
            }
        }))
    }

    /// Decodes `value` as a Swift type with these fields would be decoded by a default `JSONDecoder`.
    /// - Parameters:
    ///   - path: where `value` sits in the payload (`aps.content-state`), for messages.
    ///   - now: the device's time, to tell a date sent in the 1970 epoch from one in the 2001 epoch.
    ///   - notes: receives what decodes but is likely a mistake (undeclared keys, dates in another epoch).
    /// - Returns: `nil` when it decodes, else why it does not: the failure JSONDecoder would throw first.
    public func check(_ value: JSONValue, at path: String, now: Date, notes: inout [ActivityNote]) -> ActivityDecodingFailure? {
        do {
            try Self.checkObject(self, value, path: path, now: now, notes: &notes)
            return nil
        } catch {
            return error
        }
    }

    private static func checkObject(
        _ schema: ActivitySchema, _ value: JSONValue, path: String, now: Date, notes: inout [ActivityNote]
    ) throws(ActivityDecodingFailure) {
        guard case .object(let object) = value else {
            throw ActivityDecodingFailure(path: path, problem: .typeMismatch(expected: "an object", found: value.kindDescription))
        }
        for field in schema.fields {
            let fieldPath = "\(path).\(field.name)"
            switch object[field.name] {
            case nil, .null?:
                // decodeIfPresent: an optional takes nil from a missing key and from null alike.
                if field.isOptional { continue }
                throw ActivityDecodingFailure(path: fieldPath, problem: object[field.name] == nil ? .missing : .null)
            case let member?:
                try checkValue(field.type, member, path: fieldPath, now: now, notes: &notes)
            }
        }
        let declared = Set(schema.fields.map(\.name))
        for key in object.keys where !declared.contains(key) {
            let near = schema.fields.first { $0.name.lowercased() == key.lowercased().replacingOccurrences(of: "_", with: "") }
            let hint = near.map { "; did you mean `\($0.name)`? Key names must match the Swift property names exactly" } ?? ""
            notes.append(ActivityNote(.undeclaredKey, path: "\(path).\(key)", "is not a declared key, so the decoder ignores it\(hint)"))
        }
    }

    private static func checkValue(
        _ type: ActivityValueType, _ value: JSONValue, path: String, now: Date, notes: inout [ActivityNote]
    ) throws(ActivityDecodingFailure) {
        func mismatch() -> ActivityDecodingFailure {
            ActivityDecodingFailure(path: path, problem: .typeMismatch(expected: type.expectation, found: value.kindDescription))
        }
        switch (type, value) {
        case (.any, _), (.string, .string), (.bool, .bool), (.number, .integer), (.number, .double), (.integer, .integer):
            return
        case (.integer, .double(let double)) where double == double.rounded() && abs(double) < 9e15:
            return
        case (.date, .integer), (.date, .double):
            noteDateEpoch(value, path: path, now: now, notes: &notes)
        case (.object(let schema), .object):
            try checkObject(schema, value, path: path, now: now, notes: &notes)
        case (.array(let element), .array(let elements)):
            for (index, member) in elements.enumerated() {
                try checkValue(element, member, path: "\(path)[\(index)]", now: now, notes: &notes)
            }
        default:
            throw mismatch()
        }
    }

    /// A date number decodes whatever its epoch; only its distance from now tells the sender's intent.
    /// The two readings are 31 years apart, so whichever lands nearer to now is the one meant.
    private static func noteDateEpoch(_ value: JSONValue, path: String, now: Date, notes: inout [ActivityNote]) {
        guard let seconds = value.numberValue else { return }
        let asReference = Date(timeIntervalSinceReferenceDate: seconds)
        if seconds >= 100_000_000_000 {
            let asUnix = Date(timeIntervalSince1970: seconds / 1000)
            // A number that is no date in either reading (1e300) is noted as neither: it decodes, and shows as
            // whatever ActivityKit makes of it.
            guard asUnix.timeIntervalSince1970 < latestFourDigitYear else { return }
            if abs(asUnix.timeIntervalSince(now)) < abs(asReference.timeIntervalSince(now)) {
                notes.append(ActivityNote(.dateInUnixMilliseconds, path: path,
                    "\(describe(value)) looks like milliseconds since 1970 (\(dayText(asUnix))); ActivityKit's default decoder reads seconds since 2001-01-01, so it shows a date in the year \(yearText(asReference))"))
            }
            return
        }
        let asUnix = Date(timeIntervalSince1970: seconds)
        if abs(asUnix.timeIntervalSince(now)) < abs(asReference.timeIntervalSince(now)) {
            notes.append(ActivityNote(.dateInUnixSeconds, path: path,
                "\(describe(value)) looks like seconds since 1970 (\(dayText(asUnix))); ActivityKit's default decoder reads seconds since 2001-01-01, so it shows \(dayText(asReference)), 31 years late"))
        }
    }

    private static func describe(_ value: JSONValue) -> String { value.jsonText() }

    private static func dayText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
    }

    /// The end of the year 9999 in seconds since 1970: ISO 8601's four-digit years end there, and Foundation's
    /// calendar gives no trustworthy year far beyond it.
    private static let latestFourDigitYear: TimeInterval = 253_402_300_800

    /// The year of a date in the year 1 or later: from the calendar up to 9999, beyond it counted in mean Gregorian
    /// years (365.2425 days), which is exact enough to say how far off a date is.
    private static func yearText(_ date: Date) -> String {
        guard date.timeIntervalSince1970 >= latestFourDigitYear else {
            let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date).year
            return year.map(String.init) ?? "far ahead"
        }
        return String(1970 + Int(date.timeIntervalSince1970 / 31_556_952))
    }

    private static func parseObject(_ json: JSONValue, path: String, depth: Int) throws(ActivityError) -> ActivitySchema {
        guard depth <= maximumDepth else {
            throw ActivityError(.tooLarge, "nested deeper than \(maximumDepth) levels", path: path)
        }
        guard case .object(let object) = json else {
            throw ActivityError(.invalidValue, "expected an object of key → type, found \(json.kindDescription)", path: path)
        }
        guard object.count <= maximumFields else {
            throw ActivityError(.tooLarge, "declares \(object.count) keys, more than the \(maximumFields) allowed", path: path)
        }
        var fields: [ActivityField] = []
        for member in object {
            var name = member.key
            var isOptional = false
            if name.hasSuffix("?") {
                name.removeLast()
                isOptional = true
            }
            let fieldPath = path.isEmpty ? name : "\(path).\(name)"
            guard !name.isEmpty, name.utf8.count <= maximumKeyLength else {
                throw ActivityError(.invalidValue, "a key name must have 1 to \(maximumKeyLength) bytes", path: fieldPath)
            }
            guard !fields.contains(where: { $0.name == name }) else {
                throw ActivityError(.invalidValue, "is declared twice", path: fieldPath)
            }
            let (type, optionalType) = try parseType(member.value, path: fieldPath, depth: depth)
            fields.append(ActivityField(name: name, type: type, isOptional: isOptional || optionalType))
        }
        return ActivitySchema(fields: fields)
    }

    private static func parseType(_ json: JSONValue, path: String, depth: Int) throws(ActivityError) -> (ActivityValueType, optional: Bool) {
        switch json {
        case .string(var name):
            let optional = name.hasSuffix("?")
            if optional { name.removeLast() }
            guard let scalar = ActivityValueType.scalar(named: name) else {
                throw ActivityError(.invalidValue, "unknown type \"\(name)\" (expected string, integer, number, bool, date, any, an object or a one-element array)", path: path)
            }
            return (scalar, optional)
        case .object:
            return (.object(try parseObject(json, path: path, depth: depth + 1)), false)
        case .array(let elements) where elements.count == 1:
            guard depth < maximumDepth else { throw ActivityError(.tooLarge, "nested deeper than \(maximumDepth) levels", path: path) }
            let (element, optional) = try parseType(elements[0], path: "\(path)[0]", depth: depth + 1)
            guard !optional else { throw ActivityError(.invalidValue, "an array element cannot be optional", path: "\(path)[0]") }
            return (.array(element), false)
        default:
            throw ActivityError(.invalidValue, "expected a type name, an object or a one-element array, found \(json.kindDescription)", path: path)
        }
    }
}

/// One declared key: its Swift property name, the JSON it holds, and whether it is an optional.
public struct ActivityField: Sendable, Hashable {
    public var name: String
    public var type: ActivityValueType
    public var isOptional: Bool

    public init(name: String, type: ActivityValueType, isOptional: Bool = false) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }
}

/// The JSON a declared key holds, as the Swift property's `Decodable` conformance reads it.
public indirect enum ActivityValueType: Sendable, Hashable {
    case string
    /// `Int`: a JSON number without a fraction.
    case integer
    /// `Double`: any JSON number.
    case number
    /// `Bool`: `true` or `false`, never 0 or 1.
    case bool
    /// `Date` with the default strategy: a number of seconds since 2001-01-01 00:00 UTC.
    case date
    /// Anything: a type Huddle is not told about.
    case any
    case object(ActivitySchema)
    case array(ActivityValueType)

    static func scalar(named name: String) -> ActivityValueType? {
        switch name {
        case "string": .string
        case "integer": .integer
        case "number": .number
        case "bool": .bool
        case "date": .date
        case "any": .any
        default: nil
        }
    }

    /// What a message says was expected.
    var expectation: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .bool: "a boolean"
        case .date: "a date: a number of seconds since 2001-01-01"
        case .any: "any value"
        case .object: "an object"
        case .array: "an array"
        }
    }

    func json(optional: Bool) -> JSONValue {
        let mark = optional ? "?" : ""
        switch self {
        case .string: return .string("string" + mark)
        case .integer: return .string("integer" + mark)
        case .number: return .string("number" + mark)
        case .bool: return .string("bool" + mark)
        case .date: return .string("date" + mark)
        case .any: return .string("any" + mark)
        case .object(let schema): return schema.json
        case .array(let element): return .array([element.json(optional: false)])
        }
    }
}

/// Why a payload object does not decode into the declared type: the first failure JSONDecoder would throw.
public struct ActivityDecodingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// A key that is not optional is absent (`keyNotFound`).
        case missing
        /// A key that is not optional is `null` (`valueNotFound`).
        case null
        /// The value is of another JSON type (`typeMismatch`).
        case typeMismatch(expected: String, found: String)
    }

    /// The key path of the failing value (`aps.content-state.eta`).
    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// "content-state has no `eta`": the object is named without the `aps.` every path starts with.
    public var description: String {
        let (parent, key) = Self.split(path)
        switch problem {
        case .missing: return "\(parent) has no `\(key)`"
        case .null: return "`\(key)` in \(parent) is null, and it is not optional"
        case .typeMismatch(let expected, let found): return "\(Self.trimmed(path)): expected \(expected), found \(found)"
        }
    }

    private static func split(_ path: String) -> (parent: String, key: String) {
        guard let dot = path.lastIndex(of: ".") else { return ("the object", path) }
        return (trimmed(String(path[..<dot])), String(path[path.index(after: dot)...]))
    }

    private static func trimmed(_ path: String) -> String {
        path.hasPrefix("aps.") ? String(path.dropFirst(4)) : path
    }
}

extension JSONValue {
    /// The number when this is one, else `nil`.
    var numberValue: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        default: nil
        }
    }
}
