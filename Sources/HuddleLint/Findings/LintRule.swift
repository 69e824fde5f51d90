/// Every check `huddle lint` makes, by its stable id: the id is what output formats print, what
/// `--disable` takes, and what CI configurations refer to, so it never changes once released.
public enum LintRule: String, Sendable, Hashable, CaseIterable, Comparable {
    // Inputs
    case unreadableFile = "unreadable-file"
    case invalidScenario = "invalid-scenario"
    case catalogOutsideLproj = "catalog-outside-lproj"
    // Payloads
    case invalidPayload = "invalid-payload"
    case payloadTooLarge = "payload-too-large"
    case unknownKey = "unknown-key"
    case summaryArgCount = "summary-arg-count"
    case unusedSummaryArg = "unused-summary-arg"
    case unknownCategory = "unknown-category"
    case unknownLocKey = "unknown-loc-key"
    case locArgsCount = "loc-args-count"
    case threadIdMix = "thread-id-mix"
    case pushTypePayload = "push-type-payload"
    case interruptionLevelCapability = "interruption-level-capability"
    // FCM messages
    case fcmInvalidMessage = "fcm-invalid-message"
    case fcmUnknownChannel = "fcm-unknown-channel"
    // Web Push
    case webPushDeclarative = "web-push-declarative"
    case webPushTooLarge = "web-push-too-large"
    case webPushRequest = "web-push-request"
    // Expo messages
    case expoInvalidMessage = "expo-invalid-message"
    case expoTooLarge = "expo-too-large"
    // Live Activity payloads
    case liveActivityPayload = "live-activity-payload"
    case liveActivityContentState = "live-activity-content-state"
    case liveActivityDate = "live-activity-date"
    case liveActivityKey = "live-activity-key"
    // Catalogs
    case pluralMissingCategory = "plural-missing-category"
    case pluralUnusedCategory = "plural-unused-category"
    case pluralMissingOther = "plural-missing-other"
    case undefinedPluralVariable = "undefined-plural-variable"
    case formatMismatch = "format-mismatch"
    case missingTranslation = "missing-translation"
    case orphanedTranslation = "orphaned-translation"
    case duplicateKey = "duplicate-key"
    case needsReview = "needs-review"
    case newTranslation = "new-translation"
    case staleEntry = "stale-entry"
    // Formats
    case invalidFormat = "invalid-format"

    public var id: String { rawValue }

    public static func < (lhs: LintRule, rhs: LintRule) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The severity findings of this rule have unless the finding says otherwise.
    public var defaultSeverity: LintSeverity {
        switch self {
        case .unreadableFile, .invalidScenario, .invalidPayload, .payloadTooLarge, .summaryArgCount, .unknownCategory,
            .unknownLocKey, .locArgsCount, .pluralMissingCategory, .pluralMissingOther, .undefinedPluralVariable,
            .formatMismatch, .invalidFormat, .liveActivityPayload, .liveActivityContentState, .fcmInvalidMessage, .webPushDeclarative,
            .webPushTooLarge, .webPushRequest, .expoInvalidMessage, .expoTooLarge:
            .error
        case .unknownKey, .unusedSummaryArg, .threadIdMix, .pluralUnusedCategory, .missingTranslation, .orphanedTranslation,
            .duplicateKey, .needsReview, .newTranslation, .staleEntry, .pushTypePayload, .liveActivityDate, .liveActivityKey,
            .interruptionLevelCapability, .fcmUnknownChannel:
            .warning
        case .catalogOutsideLproj:
            .note
        }
    }

    /// One sentence on what the rule finds, for `--list-rules` and SARIF's rule descriptions.
    public var summary: String {
        switch self {
        case .unreadableFile: "A file cannot be read as a payload, scenario, app description or catalog."
        case .invalidScenario: "A scenario or app description that Huddle refuses (unknown app or event, a wrong type)."
        case .catalogOutsideLproj: "A .strings or .stringsdict file outside a <language>.lproj folder, whose language is unknown."
        case .invalidPayload: "A payload that APNs or Huddle refuses: not JSON, no aps, a value of the wrong type."
        case .payloadTooLarge: "A payload over its push type's size limit (4 KB, 5 KB for VoIP), which APNs refuses."
        case .unknownKey: "A key that aps or aps.alert does not have; APNs accepts it and it does nothing."
        case .summaryArgCount: "A summary-arg-count that is not a positive integer (iOS counts 0 or less as 1)."
        case .unusedSummaryArg: "A summary-arg sent where the category's summary format has no %@, so it is never shown."
        case .unknownCategory: "A category the app does not declare, so the push gets no summary format or actions."
        case .unknownLocKey: "A loc-key that no catalog of the app has, so iOS shows the key itself."
        case .locArgsCount: "loc-args whose count does not match the conversions of the format they fill."
        case .threadIdMix: "Some of an app's pushes carry a thread-id and others do not, so they stack apart."
        case .pushTypePayload: "A payload that does not do what its push type is for (a background push with an alert, or without content-available)."
        case .fcmInvalidMessage: "An FCM HTTP v1 message that FCM refuses: an unknown field, a data value that is not a string, a ttl that is not a duration string, a reserved data key, over 4096 bytes (2048 to a topic), no target or two."
        case .fcmUnknownChannel: "An FCM message's android.notification.channel_id that its app's description does not declare: Android posts it to the manifest's default channel, else to the Firebase SDK's \"Miscellaneous\"."
        case .webPushDeclarative: "A Declarative Web Push (\"web_push\": 8030) that WebKit's parser refuses: Safari hands it to the service worker instead of showing it."
        case .webPushTooLarge: "A web push plaintext over 3993 bytes, which no longer fits the 4096-byte body every push service takes once encrypted."
        case .webPushRequest: "A web push request's Topic, Urgency, TTL or VAPID claims that a push service refuses (Apple's, Mozilla's, Google's, each named)."
        case .expoInvalidMessage: "An Expo push message that Expo's push API refuses (VALIDATION_ERROR, over 100 notifications) or a to that is not an Expo push token, whose ticket is DeviceNotRegistered."
        case .expoTooLarge: "An Expo message whose APNs payload or FCM data is over 4096 bytes: Expo answers an ok ticket and a MessageTooBig receipt."
        case .interruptionLevelCapability: "A time-sensitive or critical push from an app whose description lacks the capability (timeSensitive) or entitlement (criticalAlerts): iOS treats it as active, so it breaks through neither the scheduled summary nor a Focus."
        case .liveActivityPayload: "A Live Activity aps that the device cannot apply: no event or timestamp, a key of the wrong type, start without its attributes."
        case .liveActivityContentState: "A content-state or attributes that does not decode into the declared type, so iOS drops the push."
        case .liveActivityDate: "A date iOS reads otherwise than meant: a declared Date sent since 1970, a stale-date not after the timestamp."
        case .liveActivityKey: "A key iOS ignores for this event (dismissal-date on update), one the type lacks, start without alert, end without content-state."
        case .pluralMissingCategory: "A plural variable without a category its language needs under CLDR."
        case .pluralUnusedCategory: "A plural variable with a category its language never uses (zero excepted)."
        case .pluralMissingOther: "A plural variable without the required other form."
        case .undefinedPluralVariable: "A %#@name@ whose entry defines no variable name."
        case .formatMismatch: "A translation whose conversions differ from the development language's (kind, count, positions)."
        case .missingTranslation: "A key of the development language that a translation lacks."
        case .orphanedTranslation: "A key of a translation that the development language lacks."
        case .duplicateKey: "A key defined more than once in one file; the last definition wins."
        case .needsReview: "A String Catalog translation marked needs_review."
        case .newTranslation: "A String Catalog translation still in the new state."
        case .staleEntry: "A String Catalog entry whose extractionState is stale: the code no longer uses it."
        case .invalidFormat: "A summary format or placeholder that Huddle refuses once localized (%s, %n, widths, a second %@)."
        }
    }
}
