public import Foundation

/// Dates as the rendered center writes them: UTC, `2018-06-06T17:00:02Z`, with milliseconds only when a
/// date has them.
///
/// Written by hand because `ISO8601DateFormatter` is slow on Linux and rendering a large center writes
/// one date per notification.
public enum ISO8601 {
    public static func string(from date: Date) -> String {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let milliseconds = Int64(totalMilliseconds)
        var seconds = milliseconds.floorDivided(by: 1000)
        let fraction = milliseconds - seconds * 1000
        let days = seconds.floorDivided(by: 86_400)
        seconds -= days * 86_400
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        // Digit by digit into bytes: rendering a center writes one of these per notification.
        var text: [UInt8] = []
        text.reserveCapacity(24)
        appendDigits(year, 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(month, 2, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(day, 2, to: &text)
        text.append(UInt8(ascii: "T"))
        appendDigits(seconds / 3600, 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(seconds % 3600 / 60, 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(seconds % 60, 2, to: &text)
        if fraction != 0 {
            text.append(UInt8(ascii: "."))
            appendDigits(fraction, 3, to: &text)
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
    public static func date(from text: String) -> Date? {
        let scalars = Array(text.utf8)
        func number(_ start: Int, _ length: Int) -> Int64? {
            guard start + length <= scalars.count else { return nil }
            var value: Int64 = 0
            for byte in scalars[start..<start + length] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard scalars.count >= 20, scalars[4] == 45, scalars[7] == 45, scalars[10] == 84 || scalars[10] == 116,
            scalars[13] == 58, scalars[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var milliseconds: Int64 = 0
        if scalars[index] == 46 {
            index += 1
            var digits = 0
            while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(scalars[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<3 where digits < 3 { milliseconds *= 10 }
        }
        var offsetSeconds: Int64 = 0
        guard index < scalars.count else { return nil }
        switch scalars[index] {
        case 90, 122:  // Z
            guard index + 1 == scalars.count else { return nil }
        case 43, 45:  // + -
            guard index + 6 == scalars.count, scalars[index + 3] == 58,
                let hours = number(index + 1, 2), let minutes = number(index + 4, 2)
            else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (scalars[index] == 45 ? -1 : 1)
        default:
            return nil
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
    }

    /// A non-negative number in at least `width` digits, zero-padded.
    private static func appendDigits(_ value: Int64, _ width: Int, to text: inout [UInt8]) {
        var divisor: Int64 = 1
        var digitCount = 1
        while divisor <= value / 10 {
            divisor *= 10
            digitCount += 1
        }
        text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, width - digitCount)))
        var rest = value
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    // Howard Hinnant's days-from-civil algorithms, on the proleptic Gregorian calendar.
    private static func civilDate(fromDaysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = adjustedYear.floorDivided(by: 400)
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
