import Foundation
import HTTPTypes
import Hummingbird
import HuddleCore
import NIOCore

extension Response {
    /// A JSON response written by Huddle's own writer (keys in their order, nulls kept).
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        var bytes = value.jsonUTF8()
        bytes.append(UInt8(ascii: "\n"))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `{"error": message}` with the status of the error.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        .json(["error": .string(message)], status: status)
    }
}

extension Request {
    /// Reads the whole body, refusing more than `limit` bytes.
    func collectBody(limit: Int) async throws -> ByteBuffer {
        var buffer = ByteBuffer()
        for try await chunk in body {
            var chunk = chunk
            buffer.writeBuffer(&chunk)
            if buffer.readableBytes > limit { throw APIError(.contentTooLarge, "the body is larger than \(limit) bytes") }
        }
        return buffer
    }

    /// The body as JSON.
    func jsonBody(limit: Int = 1 << 20) async throws -> JSONReader {
        guard let body = try await optionalJSONBody(limit: limit) else { throw APIError(.badRequest, "the body is empty; expected JSON") }
        return body
    }

    /// The body as JSON, or `nil` when there is none. A body is read whether or not a `Content-Length` announces
    /// it: HTTP/2 and chunked HTTP/1.1 requests may come without one.
    func optionalJSONBody(limit: Int = 1 << 20) async throws -> JSONReader? {
        let buffer = try await collectBody(limit: limit)
        guard buffer.readableBytes > 0 else { return nil }
        do {
            return JSONReader(try JSONParser.parse(buffer.readableBytesView))
        } catch {
            throw APIError(.badRequest, "the body is not valid JSON: \(error)")
        }
    }
}
