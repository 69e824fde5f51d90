/// The arguments a localized entry reads: for each argument position, the kinds of conversion that print
/// it, gathered over every plural form.
///
/// A linter compares signatures to find a translation that reads its arguments differently from the
/// development language (`%@` where the original has `%d`, a dropped `%2$@`, one argument too many), and
/// counts `loc-args` against them. Unlike binding (``LocalizedEntry/bind(arguments:rules:)``) it accepts
/// every printf conversion, since `%s` or `%.1f` in a translation is exactly what it should report, and it
/// follows the same position rules as binding: a plural variable takes the argument at its position, the
/// first conversion of its number's kind in a form prints that number, other conversions go on after
/// it, and a variable that is the whole string has forms numbered from 1.
public struct FormatSignature: Sendable, Hashable, CustomStringConvertible {
    /// What a conversion prints.
    public enum Kind: Int, Sendable, Hashable, Comparable, CaseIterable {
        case integer, object, float, cString, character, pointer, count, other

        /// The conversion letter messages use for the kind.
        public var conversion: String {
            switch self {
            case .integer: "%d"
            case .object: "%@"
            case .float: "%f"
            case .cString: "%s"
            case .character: "%c"
            case .pointer: "%p"
            case .count: "%n"
            case .other: "%?"
            }
        }

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The kind of a conversion's length modifiers and letter (`lld`, `@`, `f`), or of a stringsdict
        /// value type.
        public init(specifier: String) {
            switch specifier.unicodeScalars.last {
            case "d", "i", "u", "o", "x", "X", "D", "U", "O": self = .integer
            case "@": self = .object
            case "f", "F", "e", "E", "g", "G", "a", "A": self = .float
            case "s", "S": self = .cString
            case "c", "C": self = .character
            case "p": self = .pointer
            case "n": self = .count
            default: self = .other
            }
        }

        var isNumber: Bool { self == .integer || self == .float }
    }

    /// The kinds printed at each 1-based argument position.
    public private(set) var kinds: [Int: Set<Kind>] = [:]

    /// How many arguments the entry reads: its highest position (0 when it reads none).
    public var argumentCount: Int { kinds.keys.max() ?? 0 }

    /// The positions in order with their kinds, as `%1$d %2$@` (several kinds at one position are all
    /// listed: `%1$d|%1$@`).
    public var description: String {
        guard !kinds.isEmpty else { return "no conversions" }
        return kinds.keys.sorted().map { position in
            (kinds[position] ?? []).sorted().map { "%\(position)$" + $0.conversion.dropFirst() }.joined(separator: "|")
        }.joined(separator: " ")
    }

    /// The signature of a plain format.
    public init(format: String) {
        self.init(.text(format))
    }

    /// The signature of an entry, over all its plural forms. Variables the entry does not define are
    /// skipped (the readers report them), and nesting stops at ``PluralFormat/maximumDepth``.
    /// - Complexity: O(n) in the total length of the format and its forms, for variables used once each.
    public init(_ entry: LocalizedEntry) {
        switch entry {
        case .text(let text):
            for conversion in FormatScanner.conversions(in: text) {
                add(Kind(specifier: conversion.specifier), at: conversion.argumentPosition)
            }
        case .plural(let plural):
            var walk = SignatureWalk(variables: plural.variables)
            walk.visit(plural.format, depth: 0, number: nil, start: 1, reserved: nil)
            kinds = walk.signature.kinds
        }
    }

    fileprivate mutating func add(_ kind: Kind, at position: Int) {
        guard position >= 1 else { return }
        kinds[position, default: []].insert(kind)
    }
}

/// Walks a plural format and its forms as binding would, recording each conversion's position.
private struct SignatureWalk {
    let variables: [String: PluralVariable]
    var signature = FormatSignature(format: "")

    init(variables: [String: PluralVariable]) {
        self.variables = variables
    }

    /// - Parameters:
    ///   - number: the argument the enclosing variable counts, and whether it is a string (`@` value type).
    ///   - start: the position the first conversion without one takes.
    ///   - reserved: a position sequential conversions skip (a whole-string form that does not print its
    ///     number still leaves that argument to it).
    mutating func visit(_ text: String, depth: Int, number: (position: Int, isObject: Bool)?, start: Int, reserved: Int?) {
        let conversions = FormatScanner.conversions(in: text)
        var next = start == reserved ? start + 1 : start
        var pendingNumber = number
        for conversion in conversions {
            if let name = conversion.variable {
                guard depth < PluralFormat.maximumDepth, let variable = variables[name] else {
                    // Still a conversion: the arguments after it keep their places.
                    next = (conversion.position ?? next) + 1
                    continue
                }
                let position = variable.argumentPosition ?? conversion.position ?? next
                let numberKind = variable.valueType.map(FormatSignature.Kind.init(specifier:)) ?? .integer
                signature.add(numberKind, at: position)
                let written = conversion.position.map { "%\($0)$#@\(name)@" } ?? "%#@\(name)@"
                let isWholeString = depth == 0 && conversions.count == 1 && text == written
                next = isWholeString ? 1 : position + 1
                for form in variable.forms.values {
                    if isWholeString {
                        let printsNumber = FormatScanner.conversions(in: form).contains {
                            $0.position == nil && $0.variable == nil
                                && (numberKind == .object ? FormatSignature.Kind(specifier: $0.specifier) == .object
                                    : FormatSignature.Kind(specifier: $0.specifier).isNumber)
                        }
                        visit(form, depth: depth + 1, number: nil, start: 1, reserved: printsNumber ? nil : position)
                    } else {
                        visit(
                            form, depth: depth + 1, number: (position, numberKind == .object), start: position + 1,
                            reserved: nil)
                    }
                }
                continue
            }
            let kind = FormatSignature.Kind(specifier: conversion.specifier)
            let position: Int
            if let explicit = conversion.position {
                position = explicit
            } else if let counted = pendingNumber, counted.isObject ? kind == .object : kind.isNumber {
                // The form's own number: it prints the argument its variable stands for.
                position = counted.position
                pendingNumber = nil
            } else {
                position = next
            }
            signature.add(kind, at: position)
            if conversion.position != nil || position == next {
                next = position + 1
                if next == reserved { next += 1 }
            }
        }
    }
}
