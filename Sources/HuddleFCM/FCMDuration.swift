/// A `google.protobuf.Duration` in its JSON form: seconds with up to nine fractional digits and an `s`, such as
/// `"3.5s"` (FCM rounds a `ttl` down to the second).
enum FCMDuration {
    static func parse(_ text: String) -> Duration? {
        guard text.hasSuffix("s"), text.utf8.count <= 32 else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(whole) else {
            return nil
        }
        var nanoseconds: Int64 = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(fraction) else { return nil }
            nanoseconds = value * Int64(pow10(9 - fraction.count))
        }
        return .seconds(seconds) + .nanoseconds(nanoseconds)
    }

    private static func pow10(_ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { result, _ in result * 10 }
    }
}
