import HuddleCore

/// A push payload Huddle cannot accept, and why. The server maps these codes to APNs reasons.
public struct PayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// No bytes at all (APNs `PayloadEmpty`).
        case empty
        /// More bytes than the push type allows (APNs `PayloadTooLarge`).
        case tooLarge
        /// Not JSON (Apple publishes no reason; Huddle answers `BadPayload`).
        case malformedJSON
        /// JSON of the wrong shape: a key of the wrong type, a value out of range.
        case invalidValue
    }

    public var code: Code
    /// The key path of the wrong value (`aps.thread-id`), when there is one.
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

    public var description: String {
        path.map { "\($0): \(message)" } ?? message
    }
}
