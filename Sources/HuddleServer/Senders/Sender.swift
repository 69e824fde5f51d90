/// A sender API Huddle answers, as its requests' records and its faults name it.
enum Sender: String, Sendable, CaseIterable {
    /// APNs' provider API: pushes (`/3/device/…`) and broadcasts (`/1/`, `/4/`).
    case apns
    /// FCM's HTTP v1 API (`/v1/projects/{project}/messages:send`).
    case fcm
    /// The Web Push service (RFC 8030) at each subscription's endpoint (`/web-push/…`).
    case webPush
    /// Expo's push service (`/--/api/v2/push/send`).
    case expo
}
