import Foundation
import HuddleCore
import Testing

@Suite struct RandomUUIDTests {
    @Test func isACanonicalLowercaseVersion4UUID() throws {
        for _ in 0..<1_000 {
            let text = UUID.randomLowercasedString()
            let uuid = try #require(UUID(uuidString: text), "\(text) is not a UUID")
            #expect(uuid.uuidString.lowercased() == text)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version of \(text)")
            #expect(bytes[8] >> 6 == 0b10, "variant of \(text)")
        }
    }

    @Test func everyDigitVaries() {
        // Over a thousand draws every hex digit but the version's takes at least four values (the variant's
        // digit has exactly four: 8, 9, a and b), so none is left fixed by a wrong shift or mask.
        let draws = (0..<1_000).map { _ in Array(UUID.randomLowercasedString().utf8) }
        #expect(Set(draws.map { String(decoding: $0, as: UTF8.self) }).count == draws.count)
        for position in 0..<36 where ![8, 13, 14, 18, 23].contains(position) {
            #expect(Set(draws.map { $0[position] }).count >= 4, "position \(position)")
        }
    }

    @Test func timeOrderedIsACanonicalLowercaseVersion7UUIDOfItsMillisecond() throws {
        // 2025-11-26 08:00:00.123 UTC; its milliseconds since 1970 are 0x19abf2d2c7b in hex.
        let date = Date(timeIntervalSince1970: 1_764_144_000.123_4)
        for _ in 0..<1_000 {
            let text = UUID.timeOrderedLowercasedString(at: date)
            let uuid = try #require(UUID(uuidString: text), "\(text) is not a UUID")
            #expect(uuid.uuidString.lowercased() == text)
            #expect(text.hasPrefix("019abf2d-2c7b-7"), "time and version of \(text)")
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[8] >> 6 == 0b10, "variant of \(text)")
        }
    }

    @Test func timeOrderedSortsByTimeAndVariesWithin() {
        // Later milliseconds sort later as text, the order of the store's index of identifiers; within one
        // millisecond the 74 random bits keep identifiers apart.
        let start = Date(timeIntervalSince1970: 1_764_144_000)
        // Half a millisecond in, so that rounding never puts two in one millisecond.
        let successive = (0..<1_000).map { UUID.timeOrderedLowercasedString(at: start.addingTimeInterval((Double($0) + 0.5) / 1000)) }
        let outOfOrder = zip(successive, successive.dropFirst()).first { $0 >= $1 }
        #expect(outOfOrder == nil)
        let sameMillisecond = (0..<1_000).map { _ in Array(UUID.timeOrderedLowercasedString(at: start).utf8) }
        #expect(Set(sameMillisecond.map { String(decoding: $0, as: UTF8.self) }).count == sameMillisecond.count)
        for position in 15..<36 where ![18, 23].contains(position) {
            #expect(Set(sameMillisecond.map { $0[position] }).count >= 4, "position \(position)")
        }
    }

    @Test func timeOrderedClampsATimeOutsideItsBits() {
        // Before 1970, past the 48 bits (year 10889), or no time at all: the nearest time the bits hold. Foundation's
        // distant future, 4001-01-01, fits.
        #expect(UUID.timeOrderedLowercasedString(at: Date(timeIntervalSince1970: -5)).hasPrefix("00000000-0000-7"))
        #expect(UUID.timeOrderedLowercasedString(at: .distantFuture).hasPrefix("3a4aa17b-4000-7"))
        #expect(UUID.timeOrderedLowercasedString(at: Date(timeIntervalSince1970: 1e15)).hasPrefix("ffffffff-ffff-7"))
        #expect(UUID.timeOrderedLowercasedString(at: Date(timeIntervalSince1970: .nan)).hasPrefix("00000000-0000-7"))
        #expect(UUID.timeOrderedLowercasedString(at: Date(timeIntervalSince1970: .infinity)).hasPrefix("ffffffff-ffff-7"))
    }
}
