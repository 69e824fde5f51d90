public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension UUID {
    /// A new random (version 4) UUID as lowercase text.
    ///
    /// The same as `UUID().uuidString.lowercased()`, at a third of its cost: on Linux Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` for every identifier.
    public static func randomLowercasedString() -> String {
        let (random, moreRandom) = randomBits.withLock { $0.next() }
        // RFC 9562 §5.4: the version (4) in the high nibble of byte 6.
        return lowercasedText(high: random & ~0xF000 | 0x4000, low: moreRandom)
    }

    /// A new time-ordered (version 7) UUID as lowercase text: the `apns-id` Huddle gives a push that came
    /// without one, as APNs does (Apple's documentation asks for a canonical UUID and names no version).
    ///
    /// Its first 48 bits are the milliseconds since 1970, so identifiers made later sort later. Such a push's
    /// identifier is its key in the store, and a key that grows lands at the end of the store's index: with
    /// random keys, each push of a commit and each notification trimmed dirtied a page of its own in a random
    /// place of that index, about twice the SQLite write-ahead log pages per push.
    public static func timeOrderedLowercasedString(at date: Date) -> String {
        let (random, moreRandom) = randomBits.withLock { $0.next() }
        // RFC 9562 §5.7: 48 bits of Unix time in milliseconds (a time outside them, or none, is clamped), the
        // version (7) in the next nibble, then 12 random bits.
        let latest: UInt64 = 0xFFFF_FFFF_FFFF
        let time = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let milliseconds = time >= Double(latest) ? latest : time > 0 ? UInt64(time) : 0
        return lowercasedText(high: milliseconds << 16 | 0x7000 | random & 0x0FFF, low: moreRandom)
    }

    /// The UUID of these 128 bits, its variant set to RFC 9562's (binary 10 in the top bits of byte 8), as
    /// text of 8-4-4-4-12 lowercase digits written in place: one allocation for the text and nothing else.
    private static func lowercasedText(high: UInt64, low: UInt64) -> String {
        let low = low & ~(0xC0 << 56) | (0x80 << 56)
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var written = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        text[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    text[written] = digits.utf8Start[Int(byte >> 4)]
                    text[written + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    written += 2
                }
                return written
            }
        }
    }
}

/// Random bits from the system's generator, taken 4 KiB at a time: on Linux each of the generator's numbers is
/// a `getrandom` call, and a push without an `apns-id` needs two identifiers (its `apns-id` and, in development,
/// its `apns-unique-id`). Identifiers are not secrets; the bits are the kernel's all the same.
private let randomBits = Mutex(RandomBits())

private struct RandomBits {
    private var words = [UInt64](repeating: 0, count: 512)
    private var used = 512

    mutating func next() -> (UInt64, UInt64) {
        if used + 2 > words.count {
            var generator = SystemRandomNumberGenerator()
            words.withUnsafeMutableBytes { generator.fill($0) }
            used = 0
        }
        defer { used += 2 }
        return (words[used], words[used + 1])
    }
}

extension SystemRandomNumberGenerator {
    /// Fills `buffer` with random bytes: on Linux with one read of the kernel's `/dev/urandom` (glibc's
    /// `arc4random_buf` would be one call, but glibc has it only from 2.36 on, and Ubuntu 22.04 has 2.35); a
    /// number at a time elsewhere, or should that read fail.
    fileprivate mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc) || canImport(Musl)
        if let base = buffer.baseAddress, Self.readKernelRandom(into: base, count: buffer.count) { return }
        #endif
        for offset in stride(from: 0, to: buffer.count, by: 8) {
            buffer.storeBytes(of: next() as UInt64, toByteOffset: offset, as: UInt64.self)
        }
    }

    #if canImport(Glibc) || canImport(Musl)
    private static func readKernelRandom(into base: UnsafeMutableRawPointer, count: Int) -> Bool {
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var filled = 0
        while filled < count {
            let read = read(descriptor, base + filled, count - filled)
            guard read > 0 else { return false }
            filled += read
        }
        return true
    }
    #endif
}
