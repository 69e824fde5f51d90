public import Foundation

/// Base64 with the URL alphabet and no padding (RFC 7515).
public enum Base64URL {
    /// Works on the bytes: Foundation's `replacingOccurrences` bridges to NSString on Linux, which cost more
    /// than the rest of reading a token, on a path every push (and the request inspector) takes.
    public static func decode(_ text: Substring) -> Data? {
        var base64: [UInt8] = text.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64))
    }

    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
