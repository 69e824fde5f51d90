public import Foundation

/// A fresh folder for one test's files, removed when the value goes away.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` (UTF-8) at a path relative to the folder, creating folders on the way.
    /// - Returns: the file's URL.
    @discardableResult
    public func write(_ path: String, _ text: String) throws -> URL {
        try write(path, Data(text.utf8))
    }

    /// Writes bytes at a path relative to the folder, creating folders on the way.
    @discardableResult
    public func write(_ path: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }
}
