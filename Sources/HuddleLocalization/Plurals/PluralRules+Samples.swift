extension PluralRules {
    /// Whole numbers that take each category under these rules, smallest first, at most `limit` each.
    ///
    /// A category no whole number takes is absent: Russian `other` and Czech `many` hold only decimals,
    /// so a plural variable that counts things never uses them. The numbers tried are 0 to 1,099 and the
    /// powers of ten with their doubles up to 10^9, which reaches every integer category of CLDR's rules
    /// (they look at n, i, and remainders by 10, 100, 1,000 and 1,000,000).
    /// - Complexity: about 1,120 evaluations of the rules.
    public func integerSamples(limit: Int = 3) -> [PluralCategory: [Int]] {
        var samples: [PluralCategory: [Int]] = [:]
        var numbers = Array(0..<1_100)
        var power = 10_000
        while power <= 1_000_000_000 {
            numbers += [power, 2 * power]
            power *= 10
        }
        for number in numbers {
            let category = category(for: number)
            if samples[category, default: []].count < limit { samples[category, default: []].append(number) }
        }
        return samples
    }
}
