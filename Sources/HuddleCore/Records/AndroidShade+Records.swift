extension AndroidShade {
    /// The shade of a stored device's notifications and apps (the first record of a topic wins).
    public init(notifications: [DeliveredNotification], apps: [AppRecord], locked: Bool, languages: [String] = ["en"]) {
        self.init(notifications: notifications, apps: apps.map(App.init(record:)), locked: locked, languages: languages)
    }
}

extension AndroidShade.App {
    /// What the shade reads of a stored app.
    public init(record: AppRecord) {
        self.init(topic: record.topic, displayName: record.displayName, localizationFiles: record.localizationFiles, firebase: record.firebase)
    }
}
