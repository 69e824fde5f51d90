import Hummingbird

extension Request {
    /// The longest a request may ask to wait for what it checks (`wait`), in seconds.
    static let maximumWaitSeconds = 300

    /// `wait=<seconds>`: how long a read may wait for what it checks, at most ``maximumWaitSeconds``.
    func waitDuration() throws -> Duration? {
        try number("wait", in: 0...Self.maximumWaitSeconds).map { .seconds($0) }
    }

    /// A whole-number query parameter within `range`, if given (empty counts as not given).
    /// - Throws: ``APIError`` `badRequest` that names the parameter, the range and what was sent.
    func number(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = uri.queryParameters[Substring(name)], !text.isEmpty else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError(.badRequest, "\(name): expected a number from \(range.lowerBound) to \(range.upperBound), found \"\(text.prefix(40))\"")
        }
        return value
    }
}
