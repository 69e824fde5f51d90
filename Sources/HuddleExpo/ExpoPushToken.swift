import HuddleCore

/// Expo push tokens, `ExponentPushToken[…]`, as Expo's SDKs send them (docs/expo.md). Each app Huddle installs has
/// one: its Firebase installation ID in the brackets, so the token finds its app as a message's `fid` does, and stays
/// the app's for as long as the app is installed, as Expo's do.
public enum ExpoPushToken {
    /// The app's token, from its installation ID.
    public static func token(installationID: some StringProtocol) -> String {
        "ExponentPushToken[\(installationID)]"
    }

    /// The installation ID a token names: `ExponentPushToken[ID]` or `ExpoPushToken[ID]` (the Node SDK takes both),
    /// with an ID shaped as Firebase's are; `nil` for anything else, which Expo answers as "not a valid Expo push
    /// token".
    public static func installationID(of token: String) -> Substring? {
        for prefix in ["ExponentPushToken[", "ExpoPushToken["] where token.hasPrefix(prefix) && token.hasSuffix("]") {
            let inner = token.dropFirst(prefix.count).dropLast()
            return FirebaseInstallation.isInstallationID(inner) ? inner : nil
        }
        return nil
    }

    /// The project of every app that names none (an Expo project's full name is `@owner/slug`): one for all, so that a
    /// request to an iPhone's app and an Android phone's, whatever their bundle ID and package name, is one project's,
    /// as an app's two builds are at Expo. Apps that name their projects apart are refused together
    /// (`PUSH_TOO_MANY_EXPERIENCE_IDS`).
    public static let defaultProject = "@huddle/default"
}
