/// Something in a payload that APNs accepts but that does not do what its sender meant: an unknown key
/// (ignored, so `thread_id` never groups anything), a summary count that is not positive. The decoder
/// collects them; the linter reports them.
public struct PayloadNote: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A key `aps` or `aps.alert` does not have.
        case unknownKey
        /// `summary-arg-count` of 0 or less, which counts as 1.
        case summaryArgumentCountNotPositive
        /// `summary-arg-count` above ``NotificationContent/maximumSummaryArgumentCount``, which is capped.
        case summaryArgumentCountTooLarge
    }

    public var kind: Kind
    /// The object holding the key: `aps` or `aps.alert`.
    public var object: String
    /// The key the note is about, as written (`thread_id`, `summary-arg-count`); it may hold `.`.
    public var key: String
    public var message: String

    /// The key path (`aps.thread_id`, `aps.alert.summary-arg-count`).
    public var path: String { "\(object).\(key)" }

    /// For an unknown key, the key most likely meant and the object it belongs in: `thread-id` in `aps`
    /// for `aps.thread_id`, `title` in `aps.alert` for `aps.title`. Worked out when asked: the server
    /// decodes every push it accepts and never asks.
    public var suggestion: (object: String, key: String)? {
        guard kind == .unknownKey else { return nil }
        return KeySuggestion.suggestion(for: key, in: object)
    }

    public var description: String { message }
}

/// Guesses which key a misspelt one meant: an APNs key, or (with `_` between words) an FCM field.
public enum KeySuggestion {
    /// The key meant by `key`, unknown in `object` (`aps` or `aps.alert`): the same key in the other
    /// object when it belongs there, else a near spelling in `object`.
    static func suggestion(for key: String, in object: String) -> (object: String, key: String)? {
        let isAlert = object == "aps.alert"
        let (known, other) = isAlert ? (APNsPayload.alertKeys, APNsPayload.apsKeys) : (APNsPayload.apsKeys, APNsPayload.alertKeys)
        if other.contains(key) { return (isAlert ? "aps" : "aps.alert", key) }
        return closest(to: key, in: known).map { (object, $0) }
    }

    /// The known key `key` most likely stands for: the same words written another way (`thread_id`,
    /// `threadId`, `Thread-ID`), else the nearest by edit distance when it is close (at most 2 edits, and
    /// fewer than a third of the key), else `nil`.
    /// - Parameter separator: what joins the words of a known key: `-` for APNs's, `_` for FCM's.
    public static func closest(to key: String, in known: Set<String>, separator: Character = "-") -> String? {
        let normalized = normalize(key, separator: separator)
        if known.contains(normalized) { return normalized }
        guard normalized.count >= 3 else { return nil }
        let limit = min(2, normalized.count / 3)
        var best: (key: String, distance: Int)?
        for candidate in known.sorted() {
            let distance = editDistance(normalized, candidate, limit: limit)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.key
    }

    /// Lowercase words joined by `separator`: with `-`, `threadId` and `thread_id` both become `thread-id`.
    static func normalize(_ key: String, separator: Character = "-") -> String {
        var result = ""
        var previousWasLowercase = false
        for character in key {
            if character == "_" || character == " " || character == "-" {
                result.append(separator)
                previousWasLowercase = false
            } else if character.isUppercase {
                if previousWasLowercase { result.append(separator) }
                result += character.lowercased()
                previousWasLowercase = false
            } else {
                result.append(character)
                previousWasLowercase = character.isLowercase || character.isNumber
            }
        }
        return result
    }

    /// Levenshtein distance, or a value above `limit` as soon as it is known to exceed it. Keys are short;
    /// a long one costs O(length × candidate length) with the candidates' few dozen characters.
    static func editDistance(_ lhs: String, _ rhs: String, limit: Int) -> Int {
        let left = Array(lhs.unicodeScalars.prefix(64))
        let right = Array(rhs.unicodeScalars.prefix(64))
        if abs(left.count - right.count) > limit { return limit + 1 }
        var previous = Array(0...right.count)
        for (i, leftScalar) in left.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: right.count)
            for (j, rightScalar) in right.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (leftScalar == rightScalar ? 0 : 1))
            }
            if current.min() ?? 0 > limit { return limit + 1 }
            previous = current
        }
        return previous[right.count]
    }
}
