/// Settings › Notifications › Display As (iOS 16): how the Lock Screen shows the notifications, which rise from
/// the bottom of the screen. Stack is an iPhone's default.
public enum LockScreenLayout: String, Sendable, Hashable, CaseIterable {
    /// One line at the bottom: how many notifications there are.
    case count
    /// The notifications piled at the bottom: the newest group's card on top, the others as edges behind it.
    case stack
    /// Every group, one under another, newest first.
    case list
}
