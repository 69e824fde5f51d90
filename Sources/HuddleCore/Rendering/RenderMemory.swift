/// What renderings for one viewer keep from one to the next: summary formats resolved and validated, and
/// lists of names joined.
///
/// A live center renders the groups that each change touched, for the same viewers, again and again. Without
/// a memory, every rendering of a group with a summary parses and validates the app's summary format again
/// (a third of the summary's cost). Keep one memory per viewer and options, and start a new one when an
/// app's registration changes: formats and localized strings come from it. It keeps at most a few thousand
/// formats and lists.
public struct RenderMemory {
    var resolver: TextResolver

    public init(viewer: Viewer) {
        resolver = TextResolver(viewer: viewer)
    }

    /// A memory that starts again past `limit` formats or lists (for tests).
    init(viewer: Viewer, rememberingAtMost limit: Int) {
        resolver = TextResolver(viewer: viewer, maximumRemembered: limit)
    }

    /// The viewer the memory renders for.
    public var viewer: Viewer { resolver.viewer }
}
