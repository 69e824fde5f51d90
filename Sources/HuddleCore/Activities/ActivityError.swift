/// A Live Activity declaration or payload Huddle cannot take, and where it is wrong.
///
/// One error type for the area (architecture.md, style 4): a code a caller can switch on, the key path of
/// the wrong value when there is one, and a message fit to show the sender.
public struct ActivityError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// JSON of the wrong shape: a missing key, a wrong type, a value out of range.
        case invalidValue
        /// More than a bound allows: bytes, keys, nesting, declared types.
        case tooLarge
        /// Not JSON at all.
        case malformedJSON
    }

    public var code: Code
    /// The key path (`aps.content-state`, `contentState.eta`), when there is one.
    public var path: String?
    public var message: String

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    init(_ error: JSONReadError) {
        self.init(.invalidValue, error.message, path: error.path.isEmpty ? nil : error.path)
    }

    /// The same error, its path under `prefix` (`types[0]` + `name`).
    func under(_ prefix: String) -> ActivityError {
        ActivityError(code, message, path: [prefix, path ?? ""].filter { !$0.isEmpty }.joined(separator: "."))
    }

    /// Runs a reading of JSON whose errors, a reader's or an activity's own, come out as activity errors at
    /// their key path.
    static func reading<Value>(_ body: () throws -> Value) throws(ActivityError) -> Value {
        do {
            return try body()
        } catch let error as ActivityError {
            throw error
        } catch let error as JSONReadError {
            throw ActivityError(error)
        } catch {
            throw ActivityError(.invalidValue, "\(error)")
        }
    }

    public var description: String {
        path.map { "\($0): \(message)" } ?? message
    }
}
