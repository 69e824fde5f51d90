/// `apns-push-type`: what a push is for, and the topic suffix Apple requires for it.
public enum PushType: String, Sendable, Hashable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets

    /// The suffix the `apns-topic` must carry for this push type (`com.example.app.voip`), if any.
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: nil
        case .location: ".location-query"
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        }
    }

    /// The largest payload this push type may carry.
    public var maximumPayloadSize: Int {
        self == .voip ? APNsPayload.maximumVoIPSize : APNsPayload.maximumSize
    }
}
