import Testing

@testable import HuddleLocalization

@Suite("FormatScanner")
struct FormatScannerTests {
    @Test(
        "Plural variables in order, each once",
        arguments: [
            ("%#@a@", ["a"]),
            ("%1$#@a@ and %2$#@b@ and %#@a@", ["a", "b"]),
            ("100%% %#@x@ %d %@ %.1f", ["x"]),
            ("%%#@not@", []),
            ("%#@unclosed", []),
            ("no conversions", []),
        ])
    func pluralVariables(format: String, expected: [String]) {
        #expect(FormatScanner.pluralVariables(in: format) == expected)
    }

    @Test(
        "The first integer conversion and its argument",
        arguments: [
            ("%lld items", "lld", 1),
            ("%@ sent %lld photos", "lld", 2),
            ("%2$@ sent %1$d photos", "d", 1),
            ("%.1f%% of %u", "u", 2),
            ("%#@v@ then %i", "i", 2),
        ])
    func firstInteger(format: String, specifier: String, position: Int) throws {
        let conversion = try #require(FormatScanner.firstIntegerConversion(in: format))
        #expect(conversion.specifier == specifier)
        #expect(conversion.argumentPosition == position)
    }

    @Test("No integer conversion", arguments: ["%@ only", "plain", "%%d"])
    func noInteger(format: String) {
        #expect(FormatScanner.firstIntegerConversion(in: format) == nil)
    }

    @Test(
        "String Catalog's %arg placeholder",
        arguments: [
            ("%arg files", "lld", "%lld files"),
            ("%arg", "@", "%@"),
            ("100%%arg %arg", "d", "100%%arg %d"),
            ("%argument", "d", "%dument"),
            ("no placeholder", "d", "no placeholder"),
        ])
    func argumentPlaceholder(form: String, specifier: String, expected: String) {
        #expect(FormatScanner.replacingArgumentPlaceholder(in: form, with: specifier) == expected)
    }
}
