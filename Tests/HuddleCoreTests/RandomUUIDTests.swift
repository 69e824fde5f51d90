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
}
