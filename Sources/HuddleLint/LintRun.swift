import Foundation
import HuddleAPNs
import HuddleCore
import HuddleLocalization

/// One run of the linter: reads the inputs, works out which app each payload and catalog belongs to,
/// then applies the rules.
struct LintRun {
    let configuration: Linter.Configuration
    private(set) var findings: [LintFinding] = []
    private(set) var fileCount = 0

    /// Described and named apps by bundle identifier.
    private var apps: [String: LintApp] = [:]
    /// The app of catalogs and payloads that nothing ties to a named app.
    private var unnamedApp = LintApp(bundleIdentifier: nil)
    private var documents: [JSONDocument] = []
    private var payloads: [PayloadInput] = []
    /// FCM message files.
    private var fcmMessages: [JSONDocument] = []
    private var scenarios: [(document: JSONDocument, scenario: Scenario)] = []
    /// App files read, by resolved path, with their scenario when it is valid.
    private var appFiles: [String: (document: JSONDocument, scenario: Scenario?)] = [:]
    /// Each described app's `localizations` folder, as written in the file that describes it.
    private var localizationFolders: [(app: String, document: JSONDocument, folder: String)] = []
    /// Catalogs read from the inputs that no app has claimed yet, by resolved path.
    private var looseCatalogs: [String: CatalogFile] = [:]
    /// The resolved paths of catalogs some app's localizations folder holds.
    private var assignedCatalogs: Set<String> = []

    init(configuration: Linter.Configuration) {
        self.configuration = configuration
    }

    mutating func run(_ paths: [String]) {
        for appFile in configuration.appFiles {
            readAppFile(URL(fileURLWithPath: appFile), displayPath: appFile)
        }
        let inputs = LintInputs.discover(paths, limit: configuration.maximumFiles)
        findings += inputs.findings
        for file in inputs.files {
            switch file.kind {
            case .catalog: readCatalog(file.url, displayPath: file.displayPath)
            case .json, .simulatorPush: readJSONInput(file)
            }
        }
        if let app = configuration.app, apps[app] == nil { apps[app] = LintApp(bundleIdentifier: app) }
        loadLocalizationFolders()
        assignLooseCatalogs()

        // Each app's strings, merged once for the format and payload rules.
        var bundles: [String: LocalizationBundle] = [:]
        var catalogRules = CatalogRules()
        for app in allApps {
            let developmentLanguage = app.developmentLanguage(fallback: configuration.developmentLanguage)
            let strings = app.strings(developmentLanguage: developmentLanguage)
            bundles[app.bundleIdentifier ?? ""] = strings.bundle
            catalogRules.check(app, developmentLanguage: developmentLanguage)
            findings += FormatRules.check(app, strings: strings)
        }
        findings += catalogRules.findings

        // Apps first named by a payload, found from here on, have no catalogs.
        var payloadRules = PayloadRules(bundles: bundles)
        for payload in payloads {
            payloadRules.check(payload, app: app(for: payload))
        }
        for (document, scenario) in scenarios {
            payloadRules.checkEvents(of: scenario, in: document, apps: apps)
        }
        for document in fcmMessages {
            FCMRules.check(document, payloadRules: &payloadRules, app: app(forMessage: document))
        }
        payloadRules.reportThreadMixes()
        for document in documents {
            findings += document.locatedFindings()
        }
    }

    /// Every app, the unnamed one last when it holds anything.
    private var allApps: [LintApp] {
        apps.values.sorted { ($0.bundleIdentifier ?? "") < ($1.bundleIdentifier ?? "") }
            + (unnamedApp.catalogs.isEmpty ? [] : [unnamedApp])
    }

    // MARK: Reading

    private mutating func readJSONInput(_ file: LintInputs.File) {
        // An app file that is also an input was read already; as an input, its events are linted too.
        if let appFile = appFiles[file.url.resolvingSymlinksInPath().path] {
            if let scenario = appFile.scenario { scenarios.append((appFile.document, scenario)) }
            return
        }
        let document: JSONDocument
        switch JSONDocument.read(file.url, displayPath: file.displayPath) {
        case .success(let read): document = read
        case .failure(let unreadable):
            // A file found in a folder that is not even JSON was never claimed to be a payload.
            if file.isNamed || file.kind == .simulatorPush {
                fileCount += 1
                findings.append(unreadable.finding)
            }
            return
        }
        let isPayload = file.kind == .simulatorPush || Scenario.isAPNsPayload(document.json)
        guard let kind = isPayload ? .payload : Self.kind(of: document.json) else {
            if file.isNamed {
                findings.append(
                    LintFinding(
                        .unreadableFile, file: file.displayPath, line: 1, column: 1,
                        message: "neither an APNs payload (an object with \"aps\"), an FCM message (one with \"message\", or a target such as \"token\"), a web push (\"web_push\", or a request's \"vapid\"), an Expo message (\"to\"), nor a scenario or app description (an object with \"apps\")"))
            }
            return
        }
        fileCount += 1
        documents.append(document)
        switch kind {
        case .payload:
            let reading = configuration.pushType.map(PushTypeReading.named) ?? PushTypeReading.of(document.json)
            document.context = reading.findingContext
            payloads.append(PayloadInput(document: document, reading: reading))
        case .webPush: WebPushRules.check(document)
        case .expo: ExpoRules.check(document)
        case .fcm: fcmMessages.append(document)
        case .scenario: readScenario(document, isAppFile: false)
        }
    }

    /// What a JSON input is, by its shape.
    private enum InputKind {
        case payload, webPush, expo, fcm, scenario
    }

    /// The kind of a JSON input that is not an APNs payload, tried in order; `nil` for none.
    private static func kind(of json: JSONValue) -> InputKind? {
        if WebPushRules.isDeclarative(json) || WebPushRules.isRequest(json) { return .webPush }
        if ExpoRules.isMessage(json) { return .expo }
        if FCMRules.isMessage(json) { return .fcm }
        if isScenario(json) { return .scenario }
        return nil
    }

    private static func isScenario(_ json: JSONValue) -> Bool {
        guard case .object(let object) = json else { return false }
        return object["apps"] != nil || object["events"] != nil
    }

    private mutating func readAppFile(_ url: URL, displayPath: String) {
        fileCount += 1
        switch JSONDocument.read(url, displayPath: displayPath) {
        case .success(let document):
            documents.append(document)
            appFiles[url.resolvingSymlinksInPath().path] = (document, readScenario(document, isAppFile: true))
        case .failure(let unreadable):
            findings.append(unreadable.finding)
        }
    }

    /// Reads a scenario or app description: its apps become known, and (for a scenario) its payloads are
    /// linted with the rest.
    /// - Returns: the scenario, unless it is not valid.
    @discardableResult
    private mutating func readScenario(_ document: JSONDocument, isAppFile: Bool) -> Scenario? {
        let scenario: Scenario
        do {
            // Payloads are decoded and linted on their own (``PayloadRules/checkEvents``), with every problem
            // they have; the run uses no delivery's content, so here they are not decoded at all, and a bad
            // one cannot hide the rest of the scenario.
            scenario = try Scenario(json: document.json) { _ throws(ScenarioError.PayloadFailure) in NotificationContent() }
        } catch {
            let path = error.path.map { document.path($0) } ?? error.eventIndex.map { [.key("events"), .index($0)] } ?? []
            document.report(.invalidScenario, at: path, "\(error.description): fix it so the scenario can be played")
            return nil
        }
        // Whether an app declares its development language is not kept by Scenario.App (it defaults to
        // en): read from the description, in one pass over its apps.
        var declaredLanguages: [String: String] = [:]
        if case .object(let described)? = document.json["apps"] {
            for (id, app) in described {
                if case .string(let language)? = app["developmentLanguage"] { declaredLanguages[id] = language }
            }
        }
        for app in scenario.apps {
            describe(app, declaredLanguage: declaredLanguages[app.bundleIdentifier], in: document)
        }
        if !isAppFile { scenarios.append((document, scenario)) }
        return scenario
    }

    /// Records what a description says of an app; the first description of an app wins where two differ.
    private mutating func describe(_ app: Scenario.App, declaredLanguage: String?, in document: JSONDocument) {
        let id = app.bundleIdentifier
        var lintApp = apps[id] ?? LintApp(bundleIdentifier: id)
        let appPath: JSONDocument.Path = [.key("apps"), .key(id)]
        if lintApp.describedIn == nil {
            lintApp.describedIn = document.displayPath
            lintApp.declaredDevelopmentLanguage = declaredLanguage
        }
        var categories = lintApp.categories ?? [:]
        for (index, category) in app.categories.enumerated() where categories[category.identifier] == nil {
            categories[category.identifier] = LintApp.DeclaredCategory(
                category: category, document: document, path: appPath + [.key("categories"), .index(index)])
        }
        lintApp.categories = categories
        if lintApp.liveActivities.types.isEmpty { lintApp.liveActivities = app.liveActivities }
        if lintApp.firebase == nil, !app.firebase.channels.isEmpty { lintApp.firebase = app.firebase }
        lintApp.capabilities.timeSensitive = lintApp.capabilities.timeSensitive || app.capabilities.timeSensitive
        lintApp.capabilities.criticalAlerts = lintApp.capabilities.criticalAlerts || app.capabilities.criticalAlerts
        if let folder = app.localizationsPath {
            localizationFolders.append((id, document, folder))
        }
        apps[id] = lintApp
    }

    private mutating func readCatalog(_ url: URL, displayPath: String) {
        switch CatalogFile.read(url, displayPath: displayPath) {
        case .success(let catalog):
            fileCount += 1
            looseCatalogs[catalog.absolutePath] = catalog
        case .failure(let unreadable):
            if unreadable.finding.rule == .unreadableFile { fileCount += 1 }
            findings.append(unreadable.finding)
        }
    }

    // MARK: Apps

    /// Reads each described app's `localizations` folder, relative to the file that describes it.
    private mutating func loadLocalizationFolders() {
        for (id, document, folder) in localizationFolders {
            let base = document.url.deletingLastPathComponent()
            let folderURL = base.appendingPathComponent(folder)
            let displayBase = LintInputs.join(
                (document.displayPath as NSString).deletingLastPathComponent, folder)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folderURL.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                document.report(
                    .invalidScenario, at: [.key("apps"), .key(id), .key("localizations")],
                    "the localizations folder \(folder) of \(id) does not exist (it is relative to this file)")
                continue
            }
            let limit = configuration.maximumFiles
            for file in LintInputs.filesInFolder(folderURL, displayPath: displayBase, limit: limit) where file.kind == .catalog {
                let absolute = file.url.resolvingSymlinksInPath().path
                guard assignedCatalogs.insert(absolute).inserted else { continue }
                if let loose = looseCatalogs.removeValue(forKey: absolute) {
                    apps[id]?.catalogs.append(loose)
                } else {
                    // The folder is whatever a description names ("/" included): its files count against
                    // the run's limit like the inputs'.
                    guard fileCount < limit else {
                        findings.append(LintInputs.limitFinding(file.displayPath, limit: limit))
                        return
                    }
                    switch CatalogFile.read(file.url, displayPath: file.displayPath) {
                    case .success(let catalog):
                        fileCount += 1
                        apps[id]?.catalogs.append(catalog)
                    case .failure(let unreadable):
                        findings.append(unreadable.finding)
                    }
                }
            }
        }
    }

    /// Catalogs named on the command line that no app's folder holds belong to `--app`, else to the one
    /// described app, else to an unnamed app.
    private mutating func assignLooseCatalogs() {
        guard !looseCatalogs.isEmpty else { return }
        let catalogs = looseCatalogs.values.sorted { $0.displayPath < $1.displayPath }
        if let id = configuration.app ?? soleApp {
            apps[id]?.catalogs += catalogs
        } else {
            unnamedApp.catalogs = catalogs
        }
        looseCatalogs = [:]
    }

    /// The one described app, if exactly one is.
    private var soleApp: String? {
        let described = apps.values.filter { $0.categories != nil }
        return described.count == 1 ? described.first?.bundleIdentifier : nil
    }

    /// The app a payload file is for: `--app`, its `Simulator Target Bundle`, the one described app, or
    /// the unnamed app.
    /// The app an FCM message is for: the one its `android.restricted_package_name` names when described, else the
    /// `--app`, else the one app described.
    private func app(forMessage document: JSONDocument) -> LintApp {
        let message = document.json["message"] ?? document.json
        if case .string(let package)? = message["android"]?["restricted_package_name"] ?? message["android"]?["restrictedPackageName"],
            let app = apps[package]
        {
            return app
        }
        return (configuration.app ?? soleApp).flatMap { apps[$0] } ?? unnamedApp
    }

    private mutating func app(for payload: PayloadInput) -> LintApp {
        if let id = configuration.app ?? payload.simulatorTargetBundle ?? soleApp {
            if apps[id] == nil { apps[id] = LintApp(bundleIdentifier: id) }
            return apps[id] ?? LintApp(bundleIdentifier: id)
        }
        return unnamedApp
    }
}
