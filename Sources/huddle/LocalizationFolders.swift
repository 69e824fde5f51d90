import Foundation
import HuddleCore
import HuddleLocalization

/// Finds each scenario app's `localizations` folder next to the scenario file.
struct LocalizationFolders {
    let scenarioURL: URL

    func bundle(for app: Scenario.App) throws(ScenarioError) -> LocalizationBundle {
        LocalizationBundle(developmentLanguage: app.developmentLanguage)
    }
}
