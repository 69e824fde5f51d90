extension JSONReader {
    /// An app badge: an integer from 0 to ``NotificationContent/maximumBadge``.
    public func badge() throws(JSONReadError) -> Int {
        let badge = try integer()
        guard (0...NotificationContent.maximumBadge).contains(badge) else {
            throw failure("must be from 0 to \(NotificationContent.maximumBadge), found \(badge)")
        }
        return badge
    }
}
