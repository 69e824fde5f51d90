import Foundation
import HuddleCore

/// What the home page shows, for one viewer.
struct HomePage {
    /// A device of the admin's list, with the commands that push to it (never its secret).
    struct ListedDevice {
        var record: DeviceRecord
        var commands: PushCommands
    }

    /// What the devices section can show.
    enum Admin {
        /// The server has no admin token: the section says how to start it with one.
        case off
        /// The viewer has not given the admin token: the section asks for it.
        case signedOut
        case signedIn([ListedDevice])
    }

    /// How the demo's link opens its center.
    enum Demo {
        /// No demo runs.
        case none
        /// The server trusts the viewer with the demo device: one click opens it.
        case oneClick
        /// The link leads to the page that asks for the demo device's secret.
        case asksForSecret
    }

    /// Why a form the page posted was refused.
    enum Problem {
        case wrongRegistrationToken, wrongAdminToken, serverFull

        /// The kind of error it is (which the page's status comes from).
        var kind: APIError.Kind {
            switch self {
            case .wrongRegistrationToken, .wrongAdminToken: .unauthorized
            case .serverFull: .serviceUnavailable
            }
        }
    }

    /// The viewer's languages, most preferred first.
    var languages: [String]
    /// The query's `languages`, which the page's forms carry on.
    var chosenLanguages: String?
    var needsRegistrationToken: Bool
    var admin: Admin
    var demo: Demo
    var problem: Problem?
    /// The CSRF token the page's forms carry, and the cookie it belongs to when the browser has none yet.
    var formToken: (token: String, setCookie: String?)

    var context: [String: Any] {
        let (words, language) = PageWords.forViewer(languages: languages)
        var context: [String: Any] = [
            "language": language, "words": WebPages.context(words), "needsRegistrationToken": needsRegistrationToken,
            "languageOptions": LanguageMenu.options(selected: languages.first ?? "en", pageLanguage: language),
            "demoToken": DemoDevice.token, "csrf": formToken.token,
            "newDeviceHintHTML": WebPages.html(words.newDeviceHint, code: ExampleApp.topic),
        ]
        if chosenLanguages != nil { context["formLanguage"] = language }
        switch problem {
        case .wrongRegistrationToken: context["registrationProblem"] = words.wrongRegistrationToken
        case .serverFull: context["registrationProblem"] = words.serverFull
        case .wrongAdminToken: context["adminProblem"] = words.wrongAdminToken
        case nil: break
        }
        switch admin {
        case .off: context["adminOffHTML"] = WebPages.html(words.adminOff, code: "--admin-token")
        case .signedOut:
            context["adminSignedOut"] = true
            context["adminNeededHTML"] = WebPages.html(words.adminNeeded, code: "--admin-token")
        case .signedIn(let devices):
            let locale = Locale(identifier: language)
            context["adminSignedIn"] = true
            context["noDevices"] = devices.isEmpty
            context["devices"] = devices.map { device -> [String: Any] in
                var item: [String: Any] = [
                    "name": device.record.name, "token": device.record.token,
                    "created": device.record.createdAt.formatted(.dateTime.year().month().day().hour().minute().locale(locale)),
                    "createdISO": ISO8601.string(from: device.record.createdAt),
                    "sendCommand": device.commands.send, "curlCommand": device.commands.curl,
                ]
                // Only when there is one: a template's section shows for an empty text too.
                if let install = device.commands.install {
                    item["installCommand"] = install
                    item["installFirstHTML"] = WebPages.html(words.installFirst, code: "$SECRET")
                }
                return item
            }
        }
        switch demo {
        case .none: break
        case .oneClick: context["demoOneClick"] = true
        case .asksForSecret: context["demoLink"] = true
        }
        return context
    }
}
