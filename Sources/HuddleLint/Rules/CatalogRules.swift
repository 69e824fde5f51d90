import HuddleLocalization

/// The catalog rules: plural categories under CLDR, translations that differ from or miss the development
/// language, duplicates, and String Catalog states. Files are compared table by table: the `.strings` and
/// `.stringsdict` files of one name across the `.lproj` folders of one folder, or one String Catalog.
struct CatalogRules {
    /// One entry of a table in one language, with the file it is in.
    private struct Located {
        var catalog: CatalogFile
        var entry: CatalogInspection.Entry
    }

    private(set) var findings: [LintFinding] = []
    /// Integer samples of each language's categories, computed once per language.
    private var samplesByLanguage: [String: [PluralCategory: [Int]]] = [:]

    /// - Parameter developmentLanguage: the app's (``LintApp/developmentLanguage(fallback:)``).
    mutating func check(_ app: LintApp, developmentLanguage: String) {
        for catalog in app.catalogs {
            checkFile(catalog, developmentLanguage: developmentLanguage)
        }
        let tables = Dictionary(grouping: app.catalogs, by: \.tableKey)
        for key in tables.keys.sorted() {
            guard let catalogs = tables[key] else { continue }
            let tableLanguage = catalogs.first?.inspection.sourceLanguage.map { LanguageTag($0).canonical } ?? developmentLanguage
            compareTranslations(catalogs, developmentLanguage: tableLanguage)
        }
    }

    // MARK: One file

    private mutating func checkFile(_ catalog: CatalogFile, developmentLanguage: String) {
        let inspection = catalog.inspection
        for problem in inspection.problems {
            let (rule, advice): (LintRule, String) = switch problem.code {
            case .missingOtherForm: (.pluralMissingOther, "add an other form: every language needs it, and iOS falls back to it")
            case .undefinedVariable: (.undefinedPluralVariable, "define the variable in the entry, or fix its name")
            default: (.unreadableFile, "fix it so the file can be read")
            }
            add(rule, catalog, problem.line.map { SourceLocation(line: $0, column: problem.column) },
                (problem.keyPath.map { "\($0): " } ?? "") + problem.message + "; " + advice)
        }
        for repeated in inspection.repeatedKeys {
            add(.duplicateKey, catalog, repeated.location,
                "`\(repeated.key)` is defined more than once in this file and only the last definition is used: keep one")
        }
        for entry in inspection.entries {
            let language = catalog.language(of: entry, developmentLanguage: developmentLanguage)
            checkPluralCategories(entry, language: language, in: catalog)
            switch entry.state {
            case "needs_review"?:
                add(.needsReview, catalog, entry.location,
                    "the \(language) translation of `\(entry.key)` is marked needs_review: review it, then mark it translated")
            case "new"?:
                add(.newTranslation, catalog, entry.location,
                    "the \(language) translation of `\(entry.key)` is new (never translated): translate it, then mark it translated")
            default:
                break
            }
        }
        for key in inspection.catalogKeys where key.extractionState == "stale" {
            add(.staleEntry, catalog, key.location,
                "`\(key.key)` is stale: the code no longer uses it, so its translations are dead weight; delete it from the catalog, or use it again")
        }
    }

    /// A plural variable must have the categories its language's numbers take, and none it never takes
    /// (`zero` excepted: iOS uses it for 0 in any language).
    private mutating func checkPluralCategories(_ entry: CatalogInspection.Entry, language: String, in catalog: CatalogFile) {
        guard case .plural(let plural) = entry.value else { return }
        let rules = PluralRules.cardinal(for: language)
        for (name, variable) in plural.variables.sorted(by: { $0.key < $1.key }) {
            let location = entry.variableLocations[name] ?? entry.location
            let what = name.hasPrefix(StringCatalogReader.pluralVariableName)
                ? "the plural variation of `\(entry.key)`" : "plural variable `\(name)` of `\(entry.key)`"
            let present = Set(variable.forms.keys)
            let samples = integerSamples(for: language, rules: rules)
            // Without a value type the variable counts things.
            let countsThings = (variable.valueType.map(FormatSignature.Kind.init(specifier:)) ?? .integer) == .integer
            // A variable that counts things only meets the categories whole numbers take (Russian `other`
            // is for fractions); one printed as a decimal meets them all.
            let needed = countsThings ? Set(samples.keys) : Set(rules.categories)
            let missing = rules.categories.filter { needed.contains($0) && !present.contains($0) && $0 != .other }
            if !missing.isEmpty {
                let listed = missing.map { category in
                    "\(category.rawValue) (\(samples[category]?.map(String.init).joined(separator: ", ") ?? "decimals"))"
                }
                add(.pluralMissingCategory, catalog, location,
                    "\(what) has no \(listed.joined(separator: " or ")) form: \(language) needs \(Self.list(rules.categories)) under CLDR, and without it those numbers read the other form; add \(missing.count == 1 ? "it" : "them")")
            }
            let unused = PluralCategory.allCases.filter { present.contains($0) && !rules.categories.contains($0) && $0 != .zero }
            if !unused.isEmpty {
                add(.pluralUnusedCategory, catalog, location,
                    "\(what) has a \(unused.map(\.rawValue).joined(separator: " and ")) form that \(language) never uses (it has \(Self.list(rules.categories)) under CLDR), so it is never shown: remove it")
            }
        }
    }

    // MARK: Across languages

    /// Keys and conversions of each translation against the development language.
    private mutating func compareTranslations(_ catalogs: [CatalogFile], developmentLanguage: String) {
        var byLanguage: [String: [String: Located]] = [:]
        // In file order, `.stringsdict` after `.strings`, so that a key in both is taken from the
        // `.stringsdict` as iOS does.
        let ordered = catalogs.sorted {
            ($0.inspection.format == .stringsdict ? 1 : 0, $0.displayPath) < ($1.inspection.format == .stringsdict ? 1 : 0, $1.displayPath)
        }
        var keysNotToTranslate: Set<String> = []
        var staleKeys: Set<String> = []
        var catalogKeyLocations: [String: (CatalogFile, SourceLocation)] = [:]
        for catalog in ordered {
            for entry in catalog.inspection.entries {
                let language = catalog.language(of: entry, developmentLanguage: developmentLanguage)
                byLanguage[language, default: [:]][entry.key] = Located(catalog: catalog, entry: entry)
            }
            for key in catalog.inspection.catalogKeys {
                if !key.shouldTranslate { keysNotToTranslate.insert(key.key) }
                if key.extractionState == "stale" { staleKeys.insert(key.key) }
                catalogKeyLocations[key.key] = (catalog, key.location)
            }
        }
        let development = byLanguage[developmentLanguage] ?? [:]
        var developmentKeys = Set(development.keys)
        for catalog in ordered {
            developmentKeys.formUnion(catalog.inspection.catalogKeys.filter(\.standsForItself).map(\.key))
        }
        // Without the development language's table there is nothing to compare with.
        guard !developmentKeys.isEmpty else { return }
        let expected = developmentKeys.subtracting(keysNotToTranslate).subtracting(staleKeys)
        // Every translation is compared with the same development entries: their signatures are worked
        // out once, when first needed.
        var developmentSignatures: [String: FormatSignature] = [:]
        for language in byLanguage.keys.sorted() where language != developmentLanguage {
            let translation = byLanguage[language] ?? [:]
            let files = Set(translation.values.map(\.catalog.displayPath)).sorted().joined(separator: ", ")
            for key in expected.subtracting(translation.keys).sorted() {
                let (catalog, location) = development[key].map { ($0.catalog, $0.entry.location) }
                    ?? catalogKeyLocations[key].map { ($0.0, Optional($0.1)) } ?? (nil, nil)
                guard let catalog else { continue }
                add(.missingTranslation, catalog, location,
                    "`\(key)` has no \(language) translation (in \(files)): \(language) viewers read the \(developmentLanguage) text; translate it")
            }
            for key in Set(translation.keys).subtracting(developmentKeys).sorted() {
                guard let located = translation[key] else { continue }
                add(.orphanedTranslation, located.catalog, located.entry.location,
                    "`\(key)` is translated to \(language) but the development language \(developmentLanguage) has no such key, so nothing shows it: remove it, or add the key to \(developmentLanguage)")
            }
            for key in Set(translation.keys).intersection(development.keys).sorted() {
                guard let original = development[key], let translated = translation[key] else { continue }
                let originalSignature = developmentSignatures[key] ?? FormatSignature(original.entry.value)
                developmentSignatures[key] = originalSignature
                let translatedSignature = FormatSignature(translated.entry.value)
                guard originalSignature != translatedSignature else { continue }
                add(.formatMismatch, translated.catalog, translated.entry.location,
                    "the \(language) translation of `\(key)` reads its arguments as \(translatedSignature) but \(developmentLanguage) reads \(originalSignature): use the same conversions (positions may be reordered with %n$), or the arguments print wrongly or not at all")
            }
        }
    }

    // MARK: Helpers

    private mutating func integerSamples(for language: String, rules: PluralRules) -> [PluralCategory: [Int]] {
        if let samples = samplesByLanguage[language] { return samples }
        let samples = rules.integerSamples(limit: 3)
        samplesByLanguage[language] = samples
        return samples
    }

    private mutating func add(_ rule: LintRule, _ catalog: CatalogFile, _ location: SourceLocation?, _ message: String) {
        findings.append(LintFinding(rule, file: catalog.displayPath, line: location?.line, column: location?.column, message: message))
    }

    /// "one, few, many and other".
    private static func list(_ categories: [PluralCategory]) -> String {
        let names = categories.map(\.rawValue)
        guard names.count > 1, let last = names.last else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }
}
