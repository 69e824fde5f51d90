/// An FCM condition: topics joined by `&&` and `||`, with parentheses, such as
/// `'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)`. Google's rules, as docs/fcm.md records them:
/// at most five topics; what is in parentheses first, then from left to right (`&&` binds no tighter than `||`);
/// `!` is refused (FCM answers "Invalid condition expression provided.").
///
/// The parser reads each character once and nests at most as deep as the topics allow, so a stranger's condition
/// costs time linear in its length.
public struct TopicCondition: Sendable, Hashable, CustomStringConvertible {
    public indirect enum Expression: Sendable, Hashable {
        case topic(String)
        case and(Expression, Expression)
        case or(Expression, Expression)
    }

    /// Google's limit.
    public static let maximumTopics = 5
    /// Longer than any condition of five topics can usefully be.
    public static let maximumLength = 1_024

    public let expression: Expression
    /// As sent.
    public let text: String

    /// The topics it names, in order.
    public var topics: [String] {
        var found: [String] = []
        func walk(_ expression: Expression) {
            switch expression {
            case .topic(let topic): found.append(topic)
            case .and(let left, let right), .or(let left, let right):
                walk(left)
                walk(right)
            }
        }
        walk(expression)
        return found
    }

    public var description: String { text }

    /// - Throws: ``FCMError`` `INVALID_ARGUMENT` at `message.condition`, saying what is wrong after Google's words.
    public init(_ text: String) throws(FCMError) {
        func refuse(_ why: String) -> FCMError {
            FCMError.invalid(field: "message.condition", "Invalid condition expression provided. (\(why))")
        }
        guard text.utf8.count <= Self.maximumLength else { throw refuse("longer than \(Self.maximumLength) bytes") }
        var parser = Parser(bytes: Array(text.utf8))
        let expression: Expression
        do throws(Parser.Failure) {
            expression = try parser.expression(depth: 0)
            parser.skipSpaces()
            guard parser.position == parser.bytes.count else { throw Parser.Failure("unexpected text at offset \(parser.position)") }
        } catch {
            throw refuse(error.reason)
        }
        self.expression = expression
        self.text = text
    }

    /// Whether a device subscribed to `topics` gets the message.
    public func matches(subscribedTo topics: Set<String>) -> Bool {
        func evaluate(_ expression: Expression) -> Bool {
            switch expression {
            case .topic(let topic): topics.contains(topic)
            case .and(let left, let right): evaluate(left) && evaluate(right)
            case .or(let left, let right): evaluate(left) || evaluate(right)
            }
        }
        return evaluate(expression)
    }

    /// Whether a topic name is one FCM takes: `[a-zA-Z0-9-_.~%]+`.
    public static func isValidTopicName(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.count <= 900 && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
                || byte == UInt8(ascii: "%")
        }
    }

    private struct Parser {
        struct Failure: Error {
            var reason: String
            init(_ reason: String) { self.reason = reason }
        }

        let bytes: [UInt8]
        var position = 0
        var topicCount = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipSpaces() {
            while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t") { position += 1 }
        }

        /// Operands joined by `&&` and `||`, folded from the left.
        mutating func expression(depth: Int) throws(Failure) -> Expression {
            // Each parenthesis holds at least one topic, so no valid condition nests deeper than its topics.
            guard depth <= TopicCondition.maximumTopics else { throw Failure("parentheses nested more than \(TopicCondition.maximumTopics) deep") }
            var result = try operand(depth: depth)
            while true {
                skipSpaces()
                if take("&&") {
                    result = .and(result, try operand(depth: depth))
                } else if take("||") {
                    result = .or(result, try operand(depth: depth))
                } else {
                    return result
                }
            }
        }

        mutating func operand(depth: Int) throws(Failure) -> Expression {
            skipSpaces()
            guard position < bytes.count else { throw Failure("a topic or \"(\" expected at the end") }
            if bytes[position] == UInt8(ascii: "!") { throw Failure("\"!\" is not supported") }
            if take("(") {
                let inner = try expression(depth: depth + 1)
                skipSpaces()
                guard take(")") else { throw Failure("\")\" expected at offset \(position)") }
                return inner
            }
            guard take("'") else { throw Failure("a topic in single quotes expected at offset \(position)") }
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "'") { position += 1 }
            guard position < bytes.count else { throw Failure("a topic's closing quote is missing") }
            let name = String(decoding: bytes[start..<position], as: UTF8.self)
            position += 1
            guard TopicCondition.isValidTopicName(name) else { throw Failure("\"\(name.prefix(40))\" is not a topic name ([a-zA-Z0-9-_.~%]+)") }
            skipSpaces()
            guard take("in") else { throw Failure("\"in topics\" expected after '\(name.prefix(40))'") }
            skipSpaces()
            guard take("topics") else { throw Failure("\"in topics\" expected after '\(name.prefix(40))'") }
            topicCount += 1
            guard topicCount <= TopicCondition.maximumTopics else {
                throw Failure("more than \(TopicCondition.maximumTopics) topics")
            }
            return .topic(name)
        }

        mutating func take(_ word: String) -> Bool {
            let utf8 = Array(word.utf8)
            guard bytes.count - position >= utf8.count, bytes[position..<(position + utf8.count)].elementsEqual(utf8) else { return false }
            position += utf8.count
            return true
        }
    }
}
