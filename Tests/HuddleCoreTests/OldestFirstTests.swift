@testable import HuddleCore
import Testing

/// ``OldestFirst`` against a plain sorted array: every insertion and removal, at the front, near it, in the middle and
/// at the back, leaves the same elements in the same order.
@Suite struct OldestFirstTests {
    @Test func insertionsAndRemovalsAnywhereKeepTheElementsOfASortedArray() {
        var generator = IncrementalStateTests.SplitMix(state: 711)
        var elements = OldestFirst<Int>()
        var reference: [Int] = []
        for step in 0..<20_000 {
            let removes = !reference.isEmpty && Int.random(in: 0..<10, using: &generator) < 4
            if removes {
                // Mostly near the front, as trims remove; sometimes anywhere.
                let position = Int.random(in: 0..<10, using: &generator) < 7
                    ? Int.random(in: 0..<min(3, reference.count), using: &generator) : Int.random(in: 0..<reference.count, using: &generator)
                elements.remove(at: position)
                reference.remove(at: position)
            } else {
                // Mostly the newest, as deliveries come; sometimes older.
                let value = Int.random(in: 0..<10, using: &generator) < 8 ? step : Int.random(in: 0...step, using: &generator)
                elements.insertSorted(value, by: \.self)
                reference.insert(value, at: reference.firstIndex { $0 > value } ?? reference.endIndex)
            }
            #expect(elements.count == reference.count)
            if step % 97 == 0 || elements.count < 4 { #expect(Array(elements) == reference, "after step \(step)") }
        }
        #expect(Array(elements) == reference)
    }
}
