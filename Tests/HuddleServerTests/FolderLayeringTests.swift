import Foundation
import Testing

/// HuddleServer's folders depend one way, from the lowest up: a folder uses types of the folders before it
/// in ``order`` only, so that no two folders need each other.
@Suite struct FolderLayeringTests {
    static let order = ["HTTP", "Demo", "Pages", "Streams", "Devices", "Admin", "Inspector", "Provider", "FCM", "Web"]
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/HuddleServer")
        .standardizedFileURL

    /// Each file's code without its comments.
    static func code(of folder: String) throws -> [(file: String, text: String)] {
        let directory = sources.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted().map { name in
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            return ("\(folder)/\(name)", lines.joined(separator: "\n"))
        }
    }

    /// The types a folder declares at the top level.
    static func declaredTypes(in folder: String) throws -> Set<String> {
        var types: Set<String> = []
        for (_, text) in try code(of: folder) {
            for match in text.matches(of: /(?m)^(?:public |package )?(?:final )?(?:class|struct|enum|actor|protocol) ([A-Z][A-Za-z0-9]*)/) {
                types.insert(String(match.1))
            }
        }
        return types
    }

    @Test func everyFolderIsInTheOrder() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue && name != "Resources"
        }
        #expect(Set(folders) == Set(Self.order))
    }

    @Test func noFolderUsesAFolderAboveIt() throws {
        for (index, folder) in Self.order.enumerated() {
            let above = try Self.order[(index + 1)...].map { ($0, try Self.declaredTypes(in: $0)) }
            for (file, text) in try Self.code(of: folder) {
                let words = Set(text.matches(of: /[A-Za-z0-9_]+/).map { String($0.0) })
                for (upper, types) in above {
                    for type in types.intersection(words).sorted() {
                        Issue.record("\(file) uses \(type) of \(upper), a folder above \(folder)")
                    }
                }
            }
        }
    }
}
