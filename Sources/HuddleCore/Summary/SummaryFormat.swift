import HuddleLocalization

/// A summary format or hidden-previews placeholder that passed the rules of behavior.md section 6: at
/// most one count conversion (argument 1) and, for summary formats, at most one string conversion
/// (argument 2), plus text and `%%`.
struct SummaryFormat: Sendable, Hashable {
    enum Role: Sendable {
        /// `categorySummaryFormat`: a count, and optionally the list of summary arguments.
        case summary
        /// `hiddenPreviewsBodyPlaceholder`: a count only.
        case placeholder
    }

    let format: BoundFormat
    /// Whether the format prints the summary arguments (`%@`).
    let takesArgument: Bool

    /// Validates plain format text, as registration does.
    /// - Throws: ``FormatError`` naming the conversion as written and where it is.
    init(validating text: String, role: Role) throws(FormatError) {
        let template = try FormatTemplate(text)
        let written = template.conversions.map { ($0.text, $0.offset) }
        try self.init(try BoundFormat(text), role: role, written: written)
    }

    /// Validates a format that localization produced (its conversions already bound to positions).
    init(localized format: BoundFormat, role: Role) throws(FormatError) {
        try self.init(format, role: role, written: [])
    }

    private init(_ format: BoundFormat, role: Role, written: [(text: String, offset: Int)]) throws(FormatError) {
        var sawCount = false
        var sawArgument = false
        for (index, conversion) in format.conversions.enumerated() {
            func refuse(_ detail: String) -> FormatError {
                let (text, offset) = written.indices.contains(index)
                    ? written[index]
                    : ("%\(conversion.position)$" + (conversion.isInteger ? "u" : "@"), 0)
                return FormatError(conversion: text, offset: offset, reason: .shape(detail))
            }
            if conversion.isInteger {
                guard !sawCount else { throw refuse("a second count conversion is not allowed") }
                guard conversion.position == 1 else {
                    throw refuse("the count is argument 1, but this conversion takes argument \(conversion.position)")
                }
                sawCount = true
            } else {
                guard role == .summary else { throw refuse("a placeholder takes only a count (%u), not a string") }
                guard !sawArgument else { throw refuse("a second %@ is not allowed") }
                guard conversion.position == 2 else {
                    throw refuse(
                        "argument \(conversion.position) is not the summary argument: argument 1 is the count, the summary argument is argument 2 (write %2$@ to put it first)")
                }
                sawArgument = true
            }
        }
        self.format = format
        self.takesArgument = sawArgument
    }

    func render(count: Int, argument: String?, formatting: LocaleFormatting) -> String {
        format.render([.integer(count), .string(argument ?? "")], formatting: formatting)
    }
}
