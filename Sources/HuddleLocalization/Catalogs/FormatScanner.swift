/// A lenient look at printf-style formats for what the catalog readers need to check: which stringsdict
/// variables a format uses, and where its number is.
///
/// Unlike ``FormatTemplate`` it accepts every conversion (`%s`, `%.1f`…): whether a conversion is allowed
/// is for binding and linting to say, and a reader that refused a whole file over one `%f` would hide the
/// rest of it.
enum FormatScanner {
    /// One conversion as written.
    struct Conversion: Equatable {
        /// The `n` of `%n$`, if written.
        var position: Int?
        /// The length modifiers and the conversion letter (`lld`, `u`, `@`), or `#@` for a variable.
        var specifier: String
        /// The name of a `%#@name@` variable.
        var variable: String?
        /// The 1-based position of the argument it prints: its own, or the next one in order.
        var argumentPosition: Int
    }

    /// The conversions of `format` in order; `%%` is not one.
    static func conversions(in format: String) -> [Conversion] {
        let scalars = Array(format.unicodeScalars)
        var conversions: [Conversion] = []
        var nextPosition = 1
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "%" else {
                index += 1
                continue
            }
            index += 1
            if index < scalars.count, scalars[index] == "%" {
                index += 1
                continue
            }
            var position: Int?
            var digits = ""
            var lookahead = index
            while lookahead < scalars.count, ("0"..."9").contains(scalars[lookahead]) {
                digits.unicodeScalars.append(scalars[lookahead])
                lookahead += 1
            }
            if !digits.isEmpty, lookahead < scalars.count, scalars[lookahead] == "$" {
                position = Int(digits)
                index = lookahead + 1
            }
            let argumentPosition = position ?? nextPosition
            nextPosition = argumentPosition + 1
            if index + 1 < scalars.count, scalars[index] == "#", scalars[index + 1] == "@" {
                var name = ""
                var end = index + 2
                while end < scalars.count, scalars[end] != "@" {
                    name.unicodeScalars.append(scalars[end])
                    end += 1
                }
                if end < scalars.count {
                    conversions.append(
                        Conversion(position: position, specifier: "#@", variable: name, argumentPosition: argumentPosition))
                    index = end + 1
                    continue
                }
            }
            while index < scalars.count, "-+ #0'123456789.*".unicodeScalars.contains(scalars[index]) { index += 1 }
            var specifier = ""
            while index < scalars.count, "hlqLjzt".unicodeScalars.contains(scalars[index]) {
                specifier.unicodeScalars.append(scalars[index])
                index += 1
            }
            if index < scalars.count {
                specifier.unicodeScalars.append(scalars[index])
                index += 1
            }
            conversions.append(
                Conversion(position: position, specifier: specifier, variable: nil, argumentPosition: argumentPosition))
        }
        return conversions
    }

    /// The names of the `%#@name@` variables `format` uses, in order, each once. O(n) in the length of
    /// `format`.
    static func pluralVariables(in format: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for conversion in conversions(in: format) {
            if let name = conversion.variable, seen.insert(name).inserted { names.append(name) }
        }
        return names
    }

    /// The first integer conversion (`%d`, `%lld`, `%u`…), which is the number a plural form is chosen by.
    static func firstIntegerConversion(in format: String) -> Conversion? {
        conversions(in: format).first { conversion in
            guard conversion.variable == nil, let letter = conversion.specifier.unicodeScalars.last else { return false }
            return "diouxX".unicodeScalars.contains(letter)
        }
    }

    /// `form` with String Catalog's `%arg` placeholder replaced by a real conversion (`%lld`); `%%arg` is a
    /// percent sign followed by "arg" and stays.
    static func replacingArgumentPlaceholder(in form: String, with specifier: String) -> String {
        var result = ""
        var scalars = form.unicodeScalars[...]
        while let scalar = scalars.first {
            if scalar == "%", scalars.dropFirst().first == "%" {
                result += "%%"
                scalars = scalars.dropFirst(2)
            } else if scalar == "%", scalars.dropFirst().starts(with: "arg".unicodeScalars) {
                result += "%" + specifier
                scalars = scalars.dropFirst(4)
            } else {
                result.unicodeScalars.append(scalar)
                scalars = scalars.dropFirst()
            }
        }
        return result
    }
}
