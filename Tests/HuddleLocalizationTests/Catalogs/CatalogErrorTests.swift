import HuddleLocalization
import Testing

@Suite("CatalogError and CatalogWarning")
struct CatalogErrorTests {
    @Test(
        "Descriptions read like compiler diagnostics",
        arguments: [
            (CatalogError(file: "A.strings", message: "m"), "A.strings: m"),
            (CatalogError(file: "A.strings", line: 3, message: "m"), "A.strings:3: m"),
            (CatalogError(file: "A.strings", line: 3, column: 7, message: "m"), "A.strings:3:7: m"),
            (CatalogError(file: "A.strings", column: 7, message: "m"), "A.strings: m"),
            (CatalogError(file: "A.stringsdict", line: 14, keyPath: "K.v", message: "m"), "A.stringsdict:14: K.v: m"),
            (CatalogError(file: "A.xcstrings", keyPath: "", message: "m"), "A.xcstrings: m"),
        ])
    func errorDescription(error: CatalogError, expected: String) {
        #expect(error.description == expected)
    }

    @Test("A column without a line is dropped")
    func columnWithoutLine() {
        #expect(CatalogError(file: "A", column: 4, message: "m").column == nil)
    }

    @Test(
        "Warnings put warning: after the location",
        arguments: [
            (CatalogWarning(file: "de.lproj/A.strings", message: "m"), "de.lproj/A.strings: warning: m"),
            (CatalogWarning(file: "A.strings", line: 2, keyPath: "K", message: "m"), "A.strings:2: warning: K: m"),
        ])
    func warningDescription(warning: CatalogWarning, expected: String) {
        #expect(warning.description == expected)
    }
}
