public import Foundation

/// Reads files that come from strangers without trusting their size: a multi-gigabyte file, a device or a
/// FIFO given where a catalog or payload belongs is refused instead of filling memory or blocking.
public enum BoundedFile {
    /// Why a file was not read.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String

        public var description: String { message }
    }

    /// The bytes of a regular file of at most `limit` bytes.
    /// - Throws: ``Failure`` when the path is missing, not a regular file, unreadable or larger than `limit`.
    /// - Complexity: reads at most `limit + 1` bytes.
    public static func read(_ url: URL, limit: Int) throws(Failure) -> Data {
        // A link is judged by what it points at.
        let url = url.resolvingSymlinksInPath()
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw Failure(message: FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw Failure(message: "not a regular file")
        }
        if let size = attributes[.size] as? Int, size > limit {
            throw Failure(message: "the file is \(size) bytes, more than the \(limit) allowed")
        }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            // The size can change between the look and the read: read one byte past the limit to know.
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw Failure(message: "the file is more than the \(limit) bytes allowed")
            }
            return data
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "cannot be read (\(error.localizedDescription))")
        }
    }
}
