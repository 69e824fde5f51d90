public import Foundation

/// One file for ``LocalizationLoader``: its path inside the folder being loaded and its bytes, so files
/// can come from a disk, an upload or a test alike.
public struct LocalizationFile: Sendable, Hashable {
    /// The path relative to the loaded folder, with `/` between components: `de.lproj/Localizable.strings`,
    /// `Resources/Localizable.xcstrings`. Errors and warnings name files by it.
    public var path: String
    public var data: Data

    public init(path: String, data: Data) {
        self.path = path
        self.data = data
    }

    /// The path's components, without empty ones and `.` (so `./de.lproj//A.strings` works too).
    var components: [Substring] {
        path.split(separator: "/").filter { $0 != "." }
    }

    /// The last path component.
    var name: Substring { components.last ?? Substring(path) }

    /// The file name's extension, lowercased, without the dot; empty when there is none.
    var fileExtension: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The file name without its extension: the table name on Apple platforms.
    var tableName: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return String(name) }
        return String(name[..<dot])
    }
}
