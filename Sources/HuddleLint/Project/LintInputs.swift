import Foundation

/// The files a lint run reads, found from the paths it was given.
///
/// A folder is searched as a project tree holds its files: every payload (`.json`, `.apns`), scenario and
/// catalog (`.strings`, `.stringsdict`, `.xcstrings`) at any depth, skipping hidden files and folders,
/// `node_modules` and asset catalogs (`*.xcassets`, whose `Contents.json` files are not payloads). A
/// `.json` file found in a folder is read only if it turns out to be a payload or a scenario; one named
/// on the command line must be one.
struct LintInputs {
    enum Kind {
        /// A `.json` file: a payload, a scenario, or (in a folder) something else to pass over.
        case json
        /// A Simulator `.apns` payload.
        case simulatorPush
        case catalog
    }

    struct File {
        var url: URL
        /// The path as the user would write it: the input path, joined with the path inside a folder.
        var displayPath: String
        /// True for a file named on the command line rather than found in a folder.
        var isNamed: Bool
        var kind: Kind
    }

    var files: [File] = []
    /// Inputs that do not exist or are not files lint reads, and a search cut short by the file limit.
    var findings: [LintFinding] = []

    static let skippedFolderNames: Set<String> = ["node_modules"]
    static let skippedFolderExtensions: Set<String> = ["xcassets"]

    /// The kind of a file, by its extension; `nil` for files lint does not read.
    static func kind(of url: URL) -> Kind? {
        switch url.pathExtension.lowercased() {
        case "json": .json
        case "apns": .simulatorPush
        case "strings", "stringsdict", "xcstrings": .catalog
        default: nil
        }
    }

    /// Finds the files of `paths`, each once, in the order given (a folder's files sorted by path).
    /// - Parameter limit: the most files to take; the rest are left out with a finding that says so.
    static func discover(_ paths: [String], limit: Int) -> LintInputs {
        var inputs = LintInputs()
        var seen: Set<String> = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                inputs.findings.append(LintFinding(.unreadableFile, file: path, message: "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                for file in filesInFolder(url, displayPath: path, limit: limit) {
                    guard inputs.add(file, seen: &seen, limit: limit) else { return inputs }
                }
            } else if let kind = kind(of: url) {
                guard inputs.add(File(url: url, displayPath: path, isNamed: true, kind: kind), seen: &seen, limit: limit) else {
                    return inputs
                }
            } else {
                inputs.findings.append(
                    LintFinding(
                        .unreadableFile, file: path,
                        message: "not a file huddle lint reads: give payloads (.json, .apns), scenarios (.json), catalogs (.strings, .stringsdict, .xcstrings) or folders holding them"))
            }
        }
        return inputs
    }

    /// Adds a file unless it was seen; false once the limit is reached.
    private mutating func add(_ file: File, seen: inout Set<String>, limit: Int) -> Bool {
        guard seen.insert(file.url.resolvingSymlinksInPath().path).inserted else { return true }
        guard files.count < limit else {
            findings.append(Self.limitFinding(file.displayPath, limit: limit))
            return false
        }
        files.append(file)
        return true
    }

    /// The files lint reads under a folder, sorted by path.
    /// - Parameter limit: the most files a run takes; the search stops at one more, so that a folder the
    ///   size of a disk is neither listed whole nor held in memory (which files are then found first is up
    ///   to the file system).
    static func filesInFolder(_ folder: URL, displayPath: String, limit: Int) -> [File] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey]
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        else { return [] }
        let rootComponents = folder.standardizedFileURL.pathComponents
        var files: [File] = []
        while let url = enumerator.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: Set(keys))
            if values?.isDirectory == true {
                if skippedFolderNames.contains(url.lastPathComponent) || skippedFolderExtensions.contains(url.pathExtension.lowercased()) {
                    enumerator.skipDescendants()
                }
                continue
            }
            // A link to a file is read like the file; links to folders are not followed, so no loop of
            // links can keep the search going.
            let isFile = values?.isSymbolicLink == true
                ? (try? url.resolvingSymlinksInPath().resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
                : values?.isRegularFile == true
            guard isFile, let kind = kind(of: url) else { continue }
            let relative = url.standardizedFileURL.pathComponents.dropFirst(rootComponents.count).joined(separator: "/")
            files.append(File(url: url, displayPath: join(displayPath, relative), isNamed: false, kind: kind))
            if files.count > limit { break }
        }
        return files.sorted { $0.displayPath < $1.displayPath }
    }

    /// The finding for the first file a run leaves out at its file limit.
    static func limitFinding(_ displayPath: String, limit: Int) -> LintFinding {
        LintFinding(
            .unreadableFile, file: displayPath, message: "not checked: the run stopped at \(limit) files; lint fewer folders at a time")
    }

    /// `folder/relative`, without doubling a slash or writing `./`.
    static func join(_ folder: String, _ relative: String) -> String {
        if folder == "." || folder.isEmpty { return relative }
        return folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }
}
