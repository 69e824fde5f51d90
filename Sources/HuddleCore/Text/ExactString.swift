/// A string compared and hashed by its Unicode scalars, as NSString's literal comparison does.
///
/// Swift's `==` and hashing treat canonically equivalent strings as one: "Café" written with a precomposed
/// é and with e + a combining accent compare equal. Thread identifiers, summary arguments and notification
/// identifiers are opaque values that apps and providers send; behavior.md section 7 says they are
/// compared exactly, so two spellings are two threads. Equal scalars mean equal UTF-8 bytes, so the bytes
/// are what is compared and hashed (which is also cheaper than normalizing).
///
/// The string's hash is taken once and kept beside it. A dictionary keyed by these rehashes the keys after one it
/// removes (Swift's tables shift the rest of a probe run back), and compares keys along each probe: with the hash at
/// hand neither reads the strings' own storage, which in a perf profile of pushes at an app's limit made a trimmed
/// notification's removal from the center cost 2% of the server's CPU.
struct ExactString: Hashable, Sendable {
    let string: String
    private let exactHash: Int

    init(_ string: String) {
        self.string = string
        var hasher = Hasher()
        hasher.combineExactly(string)
        exactHash = hasher.finalize()
    }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.exactHash == rhs.exactHash && lhs.string.isExactlyEqual(to: rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(exactHash)
    }
}

extension String {
    /// True when both strings have the same Unicode scalars (no canonical equivalence).
    func isExactlyEqual(to other: String) -> Bool {
        // Native strings know their UTF-8 length and keep their bytes together: compare those at once.
        guard utf8.count == other.utf8.count else { return false }
        let together = utf8.withContiguousStorageIfAvailable { bytes in
            other.utf8.withContiguousStorageIfAvailable { otherBytes in bytes.elementsEqual(otherBytes) }
        }
        return together.flatMap { $0 } ?? utf8.elementsEqual(other.utf8)
    }
}

extension Hasher {
    /// Feeds a string's UTF-8 bytes, the way ``ExactString`` compares it.
    mutating func combineExactly(_ string: String) {
        var string = string
        string.withUTF8 { combine(bytes: UnsafeRawBufferPointer($0)) }
        // 0xFF never occurs in UTF-8: it ends the string, so ("ab", "c") and ("a", "bc") hash apart.
        combine(UInt8(0xFF))
    }
}
