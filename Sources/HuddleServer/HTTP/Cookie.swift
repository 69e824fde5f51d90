/// The one way the server writes a `Set-Cookie`: every cookie it sets is for the whole site, out of
/// scripts' reach, never sent with another site's requests, and only over TLS when the port speaks it.
enum Cookie {
    /// `name=value` with the attributes; `maxAge` in seconds (`0` deletes the cookie; `nil` ends it with
    /// the browser's session).
    static func header(_ name: String, _ value: String, secure: Bool, maxAge: Int64? = nil) -> String {
        "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict" + (maxAge.map { "; Max-Age=\($0)" } ?? "") + (secure ? "; Secure" : "")
    }
}
