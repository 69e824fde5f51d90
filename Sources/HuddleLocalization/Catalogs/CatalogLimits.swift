/// Bounds on one localization file, so that a file from a stranger cannot make a reader run out of stack,
/// or use more than a small multiple of its size in memory. Each is refused with a ``CatalogError`` that
/// names the file, the line where the limit was met (when there is one) and the limit.
///
/// Real files stay far inside them: a `.stringsdict` nests five elements deep and a String Catalog about
/// twelve values.
public enum CatalogLimits {
    /// The largest file a reader takes, in bytes (8 MiB, what the server lets one app upload in all).
    public static let maximumFileSize = 8 << 20

    /// How deeply property list elements (`<plist>` counts) and JSON values may nest.
    public static let maximumDepth = 64

    /// How many entries one file may hold: elements of an XML property list (keys and values alike), values
    /// of a String Catalog, pairs of a `.strings` file. A full-size real file has fewer than 400,000; the
    /// limit keeps the memory a reader needs to a few dozen megabytes whatever the file holds.
    public static let maximumEntries = 500_000

    /// Refuses a file larger than ``maximumFileSize``.
    static func checkSize(_ byteCount: Int, file: String) throws(CatalogError) {
        guard byteCount <= maximumFileSize else {
            throw CatalogError(
                file: file, message: "the file is \(byteCount) bytes, more than the \(maximumFileSize) a localization file may have")
        }
    }

    /// The error for an entry past ``maximumEntries``, at the place it starts.
    static func tooManyEntries(file: String, line: Int?, column: Int?) -> CatalogError {
        CatalogError(file: file, line: line, column: column, message: "the file has more than \(maximumEntries) entries")
    }

    /// The error for a value nested past ``maximumDepth``, at the place it starts.
    static func nestedTooDeeply(file: String, line: Int?, column: Int?, _ what: String) -> CatalogError {
        CatalogError(file: file, line: line, column: column, message: "\(what) nest more than \(maximumDepth) deep")
    }
}
