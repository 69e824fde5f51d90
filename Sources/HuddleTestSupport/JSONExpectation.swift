public import HuddleCore

/// Compares a document with an expectation written by hand.
///
/// Objects in the expectation need only name the members that matter (the others are not checked);
/// arrays must match in length and element by element; numbers compare by value. Every mismatch is
/// reported with its key path, so a failing fixture says exactly what differs.
public enum JSONExpectation {
    public static func mismatches(expected: JSONValue, actual: JSONValue, path: String = "$") -> [String] {
        switch (expected, actual) {
        case (.object(let expectedObject), .object(let actualObject)):
            return expectedObject.flatMap { member -> [String] in
                guard let actualValue = actualObject[member.key] else {
                    return ["\(path).\(member.key): missing, expected \(member.value.jsonText())"]
                }
                return mismatches(expected: member.value, actual: actualValue, path: "\(path).\(member.key)")
            }
        case (.array(let expectedElements), .array(let actualElements)):
            guard expectedElements.count == actualElements.count else {
                return ["\(path): expected \(expectedElements.count) elements, found \(actualElements.count): \(actual.jsonText())"]
            }
            return zip(expectedElements, actualElements).enumerated().flatMap { offset, pair in
                mismatches(expected: pair.0, actual: pair.1, path: "\(path)[\(offset)]")
            }
        default:
            return expected.isSemanticallyEqual(to: actual) ? [] : ["\(path): expected \(expected.jsonText()), found \(actual.jsonText())"]
        }
    }
}
