import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

/// A request body sent compressed (`Content-Encoding: gzip` or `deflate`), as Expo's Node SDK sends any body over
/// 1,024 characters. swift-nio-extras' request decompressor is a channel handler only, so the body passes through it
/// in a channel of its own: its inflation is zlib's, bounded by `limit`.
enum CompressedBody {
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The encodings inflated.
    static let encodings: Set<String> = ["gzip", "deflate"]

    /// The body inflated, at most `limit` bytes.
    /// - Throws: ``Refusal`` for a body that does not inflate, or inflates past `limit`.
    static func inflate(_ body: ByteBuffer, encoding: String, limit: Int) throws -> ByteBuffer {
        let channel = EmbeddedChannel(handler: NIOHTTPRequestDecompressor(limit: .size(limit)))
        defer { _ = try? channel.finish() }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/")
        head.headers.add(name: "content-encoding", value: encoding)
        head.headers.add(name: "content-length", value: String(body.readableBytes))
        do {
            try channel.writeInbound(HTTPServerRequestPart.head(head))
            try channel.writeInbound(HTTPServerRequestPart.body(body))
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
        } catch NIOHTTPDecompression.DecompressionError.limit {
            throw Refusal(description: "the body inflates to more than \(limit) bytes")
        } catch {
            throw Refusal(description: "the body is not valid \(encoding) data")
        }
        var inflated = ByteBuffer()
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
            if case .body(var chunk) = part { inflated.writeBuffer(&chunk) }
        }
        return inflated
    }
}
