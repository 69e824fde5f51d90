import Crypto
import Foundation
import HuddleCore
import Hummingbird

/// An app's entity tag (`ETag`): a digest of everything the app API stores of it, so that any change of it, from any
/// client or server, gives a new tag. A web app's push subscription is left out: the push service changes it (pushes
/// kept, counted), and a client's `If-Match` is about what it saved. A client that sends the tag it last saw in `If-Match` has its change
/// refused (412) when the app stored differs from what it saw; the comparison is made in the store's
/// transaction, against the app as stored then. (A digest rather than a change number: an app changed and
/// changed back has its old tag again, which is right for a tag of what is stored, and every server that
/// shares the store computes the same one without storing anything more.)
enum AppEntityTag {
    /// The tag of `app`, quoted as a header carries it.
    static func of(_ app: AppRecord) -> String {
        var hasher = SHA256()
        func add(_ text: String) { add(Data(text.utf8)) }
        func add(_ data: Data) {
            // Each field with its length, so that no two apps run together into the same bytes.
            withUnsafeBytes(of: UInt64(data.count).littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: data)
        }
        add(app.topic)
        add(app.displayName ?? "\u{0}")
        add(app.developmentLanguage)
        add(RowCodec.settingsText(app))
        add(RowCodec.categoriesText(app))
        // Only for an app that declares activity types: the tags of the others stay as they were.
        if let activityTypes = RowCodec.activityTypesText(app) { add("liveActivities\u{0}" + activityTypes) }
        if let capabilities = app.capabilities.storedText { add("capabilities\u{0}" + capabilities) }
        // Its Firebase facts beside the token (the token itself is given once and never changes by a request).
        if let firebase = app.firebase.storedText { add("firebase\u{0}" + firebase) }
        for (path, data) in app.localizationFiles.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }) {
            add(path)
            add(data)
        }
        return "\"" + Array(hasher.finalize().prefix(16)).lowercaseHex + "\""
    }

    /// The tags a request's `If-Match` accepts: `nil` without the header, `[]` for `*` (any stored app).
    /// - Throws: ``APIError`` `badRequest` for a header that names no tag (its grammar has no empty list).
    static func required(by request: Request) throws -> [String]? {
        guard let header = request.headers[.ifMatch] else { return nil }
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !tags.isEmpty else { throw APIError(.badRequest, "If-Match: expected * or entity tags (\"…\"), found none") }
        return tags.contains("*") ? [] : tags
    }

    /// Refuses a change whose `If-Match` the app as stored does not meet (412).
    static func check(_ required: [String]?, against app: AppRecord?) throws {
        guard let required else { return }
        guard let app else {
            throw APIError(.preconditionFailed, "If-Match: the app is not installed")
        }
        // Strong comparison (RFC 9110): a weak tag (W/"…") never matches.
        guard required.isEmpty || required.contains(of(app)) else {
            throw APIError(.preconditionFailed, "If-Match: the app changed since that tag; read it again (GET …/apps) and retry")
        }
    }
}
