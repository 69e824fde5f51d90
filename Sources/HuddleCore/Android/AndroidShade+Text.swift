/// The shade as `huddle preview` prints it: one paragraph per row, newest first, a group collapsed as Android shows it
/// with its children under it.
extension AndroidShade {
    public var text: String {
        var text = locked ? "Android lock screen\n" : "Android notification shade\n"
        if entries.isEmpty { text += "  (nothing to show)\n" }
        for entry in entries {
            switch entry {
            case .notification(let notification):
                text += Self.paragraph(notification, indent: "  ")
            case .group(let group):
                text += "  \(group.appName) · \(group.count) notifications (grouped)\n"
                for line in group.collapsedLines { text += "    \(line)\n" }
                if group.more > 0 { text += "    +\(group.more) more\n" }
                text += "    expanded:\n"
                for child in group.children { text += Self.paragraph(child, indent: "      ") }
            }
        }
        if blocked > 0 { text += "  \(blocked) on channels turned off (not shown)\n" }
        if hiddenOnLockScreen > 0 { text += "  \(hiddenOnLockScreen) secret (not on the lock screen)\n" }
        if !badges.isEmpty { text += "  badges: " + badges.map { "\($0.app) \($0.count)" }.joined(separator: ", ") + "\n" }
        return text
    }

    private static func paragraph(_ notification: Notification, indent: String) -> String {
        var marks = ["\(notification.channel.name) (\(notification.channel.importance.rawValue))"]
        if notification.alerting.headsUp { marks.append("heads-up") }
        if !notification.alerting.sound { marks.append("silent") }
        var text = "\(indent)\(notification.appName) · " + marks.joined(separator: " · ") + "\n"
        if notification.isRedacted { return text + "\(indent)  \(hiddenText)\n" }
        if let title = notification.title, !title.isEmpty { text += "\(indent)  \(title)\n" }
        if let body = notification.body, !body.isEmpty { text += "\(indent)  \(body)\n" }
        return text
    }
}
