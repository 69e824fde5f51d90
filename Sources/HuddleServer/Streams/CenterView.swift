import HuddleCore

/// Who looks at a center, and in which form: streams and reads with equal views share one rendering.
struct CenterView: Sendable, Hashable {
    enum Format: Sendable, Hashable {
        /// The rendered center's JSON (scenario.md).
        case json
        /// The web page's HTML.
        case html
    }

    var viewer: Viewer
    var format: Format
    /// At most this many notifications of each group (``RenderOptions/notificationLimit``).
    var notificationLimit: Int?

    var options: RenderOptions { RenderOptions(notificationLimit: notificationLimit) }
}
