import HTTPTypes
import Hummingbird
import HuddleAPNs
import HuddleCore
import NIOCore

/// A request's body, read when the endpoint asks for it: after the checks that need no body, so that a refused
/// request's body is never read.
enum SenderRequestBody: Sendable {
    /// Hummingbird's request, whose body is read then.
    case request(Request)
    /// Read already by the transport, up to ``largestPayload`` bytes; `nil` when the body was longer (the
    /// rest was dropped).
    case collected(ByteBuffer?)

    /// The most that any push type may carry: the transport keeps no more.
    static let largestPayload = PushType.allCases.map(\.maximumPayloadSize).max() ?? 4096

    /// A body longer than its sender allows, which each sender refuses in its own words.
    struct TooLarge: Error {
        let limit: Int
    }

    /// The whole body; ``TooLarge`` when it is longer than `limit`.
    func collect(limit: Int) async throws -> ByteBuffer {
        switch self {
        case .request(let request):
            do {
                return try await request.collectBody(limit: limit)
            } catch is APIError {
                throw SenderRequestBody.TooLarge(limit: limit)
            }
        case .collected(let body):
            guard let body, body.readableBytes <= limit else { throw SenderRequestBody.TooLarge(limit: limit) }
            return body
        }
    }
}

/// What a sender's endpoint answers (APNs' provider endpoint, FCM's `messages:send`): the transport writes it (the
/// status, the headers, the JSON body), and for an HTTP/1.1 request whose refusal `goesAway`, closes the connection
/// after it. A request
/// that a fault cut off is not `answered`: its stream or connection is closed already.
struct SenderAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer?
    var answered = true
    var goesAway = false
    /// The request was a sender's message, accepted (``SenderAccepted``): what the transport learns it from.
    var acceptsSender = false
    /// The request's body was too long to be read to its end (``SenderRequestReading/longestDropped``): an
    /// HTTP/1.1 connection reads nothing more (and ends with this answer). An HTTP/2 stream needs no word of it:
    /// an answer that ends before its request is reset after the answer (``StreamLifetime``, ``SenderStream``).
    var bodyCutShort = false
}

extension SenderAnswer {
    /// `value` as a JSON answer, as the router's JSON answers are written (``Response/json(_:status:headers:)``).
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> SenderAnswer {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        var bytes = value.jsonUTF8()
        bytes.append(UInt8(ascii: "\n"))
        return SenderAnswer(status: status, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    /// The answer as the router writes it.
    var routerResponse: Response {
        Response(status: status, headers: headers, body: body.map { .init(byteBuffer: $0) } ?? .init())
    }
}

extension HTTPFields {
    /// Adds a field whose value is new in every answer (an `apns-id`, an `apns-unique-id`), marked so that HTTP/2's
    /// header compression does not index it: indexed, each would only push out of the connection's table the
    /// fields that do repeat (the status, `server`, `date`), at a cost to both sides.
    mutating func appendUnindexed(_ name: HTTPField.Name, _ value: String) {
        var field = HTTPField(name: name, value: value)
        field.indexingStrategy = .avoid
        append(field)
    }
}
