import Foundation

/// A format whose conversions all know which argument they print, with plural variables already replaced
/// by their forms. Only this shape is ever filled in; Huddle substitutes the arguments itself.
public struct BoundFormat: Sendable, Hashable {
    public enum Piece: Sendable, Hashable {
        case text(String)
        /// A number conversion (`%u`, `%d`…) printing the argument at this 1-based position.
        case integer(position: Int)
        /// A string conversion (`%@`) printing the argument at this 1-based position.
        case object(position: Int)
    }

    public var pieces: [Piece]

    public init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// Binds a format that has no plural variables.
    ///
    /// Conversions without a position take the argument after the previous conversion's, as printf does.
    /// - Throws: ``FormatError`` for a conversion that is not allowed, or a `%#@variable@`, which needs an
    ///   entry's variables to resolve (use ``LocalizedEntry/bind(arguments:rules:)``).
    public init(_ format: String) throws(FormatError) {
        let template = try FormatTemplate(format)
        var binder = Binder()
        try binder.bind(template, variables: [:], arguments: [], rules: nil, depth: 0)
        self.pieces = binder.finish()
    }

    /// The format written back with explicit positions (`%1$u more from %2$@`), for messages.
    public var text: String {
        pieces.map {
            switch $0 {
            case .text(let text): text.replacingOccurrences(of: "%", with: "%%")
            case .integer(let position): "%\(position)$u"
            case .object(let position): "%\(position)$@"
            }
        }.joined()
    }

    /// The conversions in order, as (kind is integer, position).
    public var conversions: [(isInteger: Bool, position: Int)] {
        pieces.compactMap {
            switch $0 {
            case .text: nil
            case .integer(let position): (true, position)
            case .object(let position): (false, position)
            }
        }
    }

    /// Fills in the arguments.
    ///
    /// Numbers are written in `formatting`'s locale ("1,234", "1.234", "١٬٢٣٤"). A number conversion given a
    /// string prints it as a number when it reads as one (APNs `loc-args` are strings), else as it is. A
    /// missing argument prints nothing; linting reports it before it gets here.
    /// - Complexity: O(n) in the length of the result.
    public func render(_ arguments: [FormatArgument], formatting: LocaleFormatting) -> String {
        var output = ""
        for piece in pieces {
            switch piece {
            case .text(let text):
                output += text
            case .integer(let position):
                guard let argument = arguments[safe: position - 1] else { continue }
                switch argument {
                case .integer(let number): output += formatting.integer(number)
                case .string(let string): output += Int(string).map(formatting.integer) ?? string
                }
            case .object(let position):
                guard let argument = arguments[safe: position - 1] else { continue }
                switch argument {
                case .integer(let number): output += formatting.integer(number)
                case .string(let string): output += string
                }
            }
        }
        return output
    }
}

/// A value for one conversion of a format.
public enum FormatArgument: Sendable, Hashable {
    case integer(Int)
    case string(String)

    /// The plural operands of this argument, if it is a number (a string is read as a decimal number).
    var pluralOperands: PluralOperands? {
        switch self {
        case .integer(let integer): PluralOperands(integer)
        case .string(let string): try? PluralOperands(decimal: string)
        }
    }
}

extension LocalizedEntry {
    /// The entry as a ``BoundFormat``, its plural variables replaced by the forms their numbers call for.
    ///
    /// A variable takes the argument at its position (`%#@files@` is a conversion like any other); inside
    /// the chosen form, the first conversion of the variable's value type prints that same number, and
    /// other conversions go on with the arguments after it (the stringsdict convention Apple's examples
    /// use: `Ещё %#@notifications@` with the form `%u уведомления от %@`). When the variable is the whole
    /// string, its forms are complete formats numbered from 1 (`%2$@から他%1$u件`).
    /// - Parameters:
    ///   - arguments: the values the format will be filled with; variables read their numbers here.
    ///   - rules: the plural rules of the language the entry came from.
    /// - Throws: ``FormatError`` for a conversion that is not allowed, in the format or in a chosen form,
    ///   or for a variable the entry does not define.
    public func bind(arguments: [FormatArgument], rules: PluralRules) throws(FormatError) -> BoundFormat {
        var binder = Binder()
        switch self {
        case .text(let text):
            try binder.bind(try FormatTemplate(text), variables: [:], arguments: arguments, rules: rules, depth: 0)
        case .plural(let plural):
            try binder.bind(
                try FormatTemplate(plural.format), variables: plural.variables, arguments: arguments, rules: rules,
                depth: 0)
        }
        return BoundFormat(pieces: binder.finish())
    }
}

/// Walks templates, giving each conversion its argument position and expanding plural variables.
private struct Binder {
    var pieces: [BoundFormat.Piece] = []
    /// Text waiting for the next conversion, so that runs of text are joined once rather than copied on
    /// every append.
    private var pendingText = ""
    /// Scalars of text plus conversions written so far, held to ``PluralFormat/maximumExpandedLength``.
    private var expandedLength = 0
    var nextPosition = 1
    /// An argument position sequential conversions skip: the number of a whole-string form that does not
    /// print it.
    var reservedPosition: Int?

    /// The pieces, with the last run of text.
    mutating func finish() -> [BoundFormat.Piece] {
        flushText()
        return pieces
    }

    mutating func bind(
        _ template: FormatTemplate,
        variables: [String: PluralVariable],
        arguments: [FormatArgument],
        rules: PluralRules?,
        depth: Int,
        numberPosition: Int? = nil,
        numberIsObject: Bool = false
    ) throws(FormatError) {
        var pendingNumberPosition = numberPosition
        for piece in template.pieces {
            switch piece {
            case .text(let text):
                try grow(by: text.unicodeScalars.count, in: template)
                pendingText += text
            case .conversion(let conversion):
                let isInteger: Bool
                switch conversion.kind {
                case .integer: isInteger = true
                case .object: isInteger = false
                case .pluralVariable(let name):
                    try bindVariable(
                        name, conversion: conversion, in: template, variables: variables, arguments: arguments,
                        rules: rules, depth: depth)
                    continue
                }
                let position: Int
                if let explicit = conversion.position {
                    position = explicit
                } else if let number = pendingNumberPosition, isInteger != numberIsObject {
                    // The form's own number: it prints the argument its variable stands for.
                    position = number
                    pendingNumberPosition = nil
                } else {
                    position = nextPosition
                }
                guard position <= FormatTemplate.maximumArgumentPosition else {
                    throw FormatError(conversion: conversion.text, offset: conversion.offset, reason: .badPosition)
                }
                if conversion.position != nil || position == nextPosition {
                    nextPosition = position + 1
                    if nextPosition == reservedPosition { nextPosition += 1 }
                }
                try grow(by: 1, in: template)
                flushText()
                pieces.append(isInteger ? .integer(position: position) : .object(position: position))
            }
        }
    }

    private mutating func flushText() {
        guard !pendingText.isEmpty else { return }
        pieces.append(.text(pendingText))
        pendingText = ""
    }

    /// Counts what an expansion adds, refusing a format that grows past the limit (variables whose forms
    /// use other variables can multiply a small catalog into megabytes).
    private mutating func grow(by length: Int, in template: FormatTemplate) throws(FormatError) {
        expandedLength += length
        guard expandedLength <= PluralFormat.maximumExpandedLength else {
            throw FormatError(
                conversion: template.source.count > 40 ? String(template.source.prefix(40)) + "…" : template.source,
                offset: 0, reason: .shape("the format expands to more than \(PluralFormat.maximumExpandedLength) characters"))
        }
    }

    private mutating func bindVariable(
        _ name: String,
        conversion: FormatConversion,
        in template: FormatTemplate,
        variables: [String: PluralVariable],
        arguments: [FormatArgument],
        rules: PluralRules?,
        depth: Int
    ) throws(FormatError) {
        let written = conversion.text.isEmpty ? (conversion.position.map { "%\($0)$#@\(name)@" } ?? "%#@\(name)@") : conversion.text
        guard let variable = variables[name], let rules else {
            throw FormatError(
                conversion: written, offset: conversion.offset,
                reason: .shape("the plural variable \(name) is not defined"))
        }
        let position = variable.argumentPosition ?? conversion.position ?? nextPosition
        guard (1...FormatTemplate.maximumArgumentPosition).contains(position) else {
            throw FormatError(conversion: written, offset: conversion.offset, reason: .badPosition)
        }
        // A variable that is the whole string (an `.xcstrings` plural variation, or a stringsdict whose
        // format is just `%#@name@`) has forms that are complete formats: they number their own
        // conversions from 1, so "%2$@ sent %1$lld photos" means what it says.
        let isWholeString = template.pieces.count == 1 && depth == 0
        nextPosition = isWholeString ? 1 : position + 1
        let operands = arguments[safe: position - 1]?.pluralOperands ?? PluralOperands(0)
        guard let form = variable.form(for: operands, rules: rules) else {
            throw FormatError(
                conversion: written, offset: conversion.offset,
                reason: .shape("the plural variable \(name) has no \"other\" form"))
        }
        guard depth < PluralFormat.maximumDepth else {
            throw FormatError(conversion: written, offset: conversion.offset, reason: .shape("plural variables nest too deeply"))
        }
        let formTemplate = try FormatTemplate(form)
        if isWholeString {
            // A form that leaves the number out ("עוד שתי הודעות מ%@") still leaves its argument to the
            // number, so its other conversions keep their meaning.
            let numberIsObject = variable.valueType == "@"
            let printsNumber = formTemplate.conversions.contains {
                $0.position == nil && $0.kind == (numberIsObject ? FormatConversion.Kind.object : .integer)
            }
            reservedPosition = printsNumber ? nil : position
            if reservedPosition == 1 { nextPosition = 2 }
        }
        try bind(
            formTemplate, variables: variables, arguments: arguments, rules: rules, depth: depth + 1,
            numberPosition: isWholeString ? nil : position, numberIsObject: variable.valueType == "@")
    }
}

extension PluralFormat {
    /// How deeply variables may nest (a form that uses a variable whose form uses another…).
    public static let maximumDepth = 8
    /// The longest text, in Unicode scalars, that binding a format may produce. Real formats are a line of
    /// text; the limit stops variables that reuse each other from multiplying a small file into megabytes.
    public static let maximumExpandedLength = 16_384

    /// Checks that every way of choosing forms expands within the limits, so that a catalog that would
    /// blow up is refused when it is uploaded rather than when a center is shown.
    ///
    /// The rules: a variable that is defined may be used at most once in the format and in each form, no
    /// variable may use itself (directly or through others), nesting stays within ``maximumDepth``, and the
    /// longest expansion within ``maximumExpandedLength``. Conversions are not judged here (an entry with
    /// `%s` stays usable as plain text); binding reports them.
    /// - Throws: ``FormatError`` naming the variable and what is wrong.
    /// - Complexity: O(n) in the total length of the format and its forms: each variable is measured once.
    public func checkExpansion() throws(FormatError) {
        var measured: [String: Expansion] = [:]
        var inProgress: Set<String> = []
        let expansion = try Self.longestExpansion(
            of: format, variables: variables, depth: 0, measured: &measured, inProgress: &inProgress)
        guard expansion.depth <= Self.maximumDepth else {
            throw FormatError(conversion: format, offset: 0, reason: .shape("plural variables nest more than \(Self.maximumDepth) deep"))
        }
    }

    /// The worst case of a text's expansion: its longest length and its deepest nesting of variables.
    private struct Expansion {
        var length: Int
        var depth: Int
    }

    /// - Parameter depth: how many variables enclose `text`; the walk stops past ``maximumDepth``, so that a
    ///   chain of thousands of variables cannot exhaust the stack.
    private static func longestExpansion(
        of text: String, variables: [String: PluralVariable], depth: Int, measured: inout [String: Expansion],
        inProgress: inout Set<String>
    ) throws(FormatError) -> Expansion {
        var expansion = Expansion(length: text.unicodeScalars.count, depth: 0)
        var used: Set<String> = []
        for conversion in FormatScanner.conversions(in: text) {
            guard let name = conversion.variable, let variable = variables[name] else { continue }
            let written = "%#@\(name)@"
            guard used.insert(name).inserted else {
                throw FormatError(conversion: written, offset: 0, reason: .shape("the plural variable \(name) is used twice in one text"))
            }
            guard !inProgress.contains(name) else {
                throw FormatError(conversion: written, offset: 0, reason: .shape("the plural variable \(name) uses itself"))
            }
            if measured[name] == nil {
                guard depth < maximumDepth else {
                    throw FormatError(conversion: written, offset: 0, reason: .shape("plural variables nest more than \(maximumDepth) deep"))
                }
                inProgress.insert(name)
                var longest = Expansion(length: 0, depth: 0)
                for form in variable.forms.values {
                    let formExpansion = try longestExpansion(
                        of: form, variables: variables, depth: depth + 1, measured: &measured, inProgress: &inProgress)
                    longest.length = max(longest.length, formExpansion.length)
                    longest.depth = max(longest.depth, formExpansion.depth)
                }
                inProgress.remove(name)
                measured[name] = longest
            }
            let variableExpansion = measured[name] ?? Expansion(length: 0, depth: 0)
            expansion.length += variableExpansion.length
            expansion.depth = max(expansion.depth, variableExpansion.depth + 1)
            guard expansion.length <= maximumExpandedLength else {
                throw FormatError(
                    conversion: written, offset: 0,
                    reason: .shape("the text expands to more than \(maximumExpandedLength) characters through its plural variables"))
            }
        }
        return expansion
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
