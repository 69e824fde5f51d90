public import Foundation

/// The folders of one of Huddle's modules, and which use which: what each module's layering test reads, so that its
/// folders depend one way, from the lowest up (a folder uses types declared in the folders before it in an order
/// only), and no two folders need each other (docs/architecture.md, "Layers").
///
/// A type is a folder's when a file of the folder declares it at the top level; a folder uses it when its code (its
/// comments and string literals left out) names it.
public struct FolderLayering: Sendable {
    /// The module's source folder.
    public let sources: URL

    /// - Parameters:
    ///   - module: the module's name, its folder under `Sources/`.
    ///   - testFile: the test's own `#filePath`, under `Tests/<target>/`.
    public init(module: String, testFile: String) {
        sources = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("../../Sources/\(module)")
            .standardizedFileURL
    }

    /// The module's folders (a `Resources` folder holds no code).
    public func folders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: sources.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue && name != "Resources"
        }.sorted()
    }

    /// Each file's code, without its comments and string literals.
    public func code(of folder: String) throws -> [(file: String, text: String)] {
        let directory = sources.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var files: [(String, String)] = []
        for case let name as String in walker where name.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                // String literals first, so that a `//` in one (a URL) does not cut the code after it.
                let code = String(line).replacing(/"(?:[^"\\]|\\.)*"/, with: "\"\"")
                return code.range(of: "//").map { String(code[..<$0.lowerBound]) } ?? code
            }
            files.append(("\(folder)/\(name)", lines.joined(separator: "\n")))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The types a folder declares at the top level.
    public func declaredTypes(in folder: String) throws -> Set<String> {
        var types: Set<String> = []
        for (_, text) in try code(of: folder) {
            for match in text.matches(of: /(?m)^(?:public |package )?(?:final |indirect )?(?:class|struct|enum|actor|protocol|typealias) ([A-Z][A-Za-z0-9]*)/) {
                types.insert(String(match.1))
            }
        }
        return types
    }

    /// A folder using another's types: which types, and in which of its files.
    public struct Use: Sendable, Hashable, CustomStringConvertible {
        public var folder: String
        public var uses: String
        public var types: [String]
        public var files: [String]

        public var description: String { "\(folder) uses \(uses)'s \(types.joined(separator: ", ")) (\(files.joined(separator: ", ")))" }
    }

    /// Every use of one folder's types by another.
    public func uses() throws -> [Use] {
        let folders = try folders()
        let declared = try Dictionary(uniqueKeysWithValues: folders.map { ($0, try declaredTypes(in: $0)) })
        var uses: [Use] = []
        for folder in folders {
            let files = try code(of: folder).map { file in (file.file, Set(file.text.matches(of: /[A-Za-z0-9_]+/).map { String($0.0) })) }
            for other in folders where other != folder {
                let types = declared[other, default: []]
                let using = files.filter { !$0.1.isDisjoint(with: types) }
                guard !using.isEmpty else { continue }
                let named = using.reduce(into: Set<String>()) { $0.formUnion($1.1.intersection(types)) }
                uses.append(Use(folder: folder, uses: other, types: named.sorted(), files: using.map(\.0)))
            }
        }
        return uses
    }

    /// The uses that go up `order` (a folder using one after it), and the folders the order leaves out.
    public func upwardUses(in order: [String]) throws -> (upward: [Use], unordered: [String]) {
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let unordered = try folders().filter { position[$0] == nil }
        let upward = try uses().filter { use in
            guard let from = position[use.folder], let to = position[use.uses] else { return false }
            return to > from
        }
        return (upward, unordered)
    }

    /// What breaks `order`, as sentences a test reports: a folder it leaves out, and a use of a folder above.
    public func problems(in order: [String]) throws -> [String] {
        let (upward, unordered) = try upwardUses(in: order)
        return unordered.map { "\($0) is in no place of the order" } + upward.map { "\($0): a folder above it" }
    }
}
