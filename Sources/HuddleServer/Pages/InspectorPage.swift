import HuddleCore

/// What the request inspector's page (`/requests`) shows around the table its script fills: its own words in
/// the viewer's language, those the script writes too (the stream's states, the labels of one request's
/// view), and whether the viewer is signed in as the admin.
struct InspectorPage {
    /// The viewer's languages, most preferred first.
    var languages: [String]
    /// The query's `languages`, which the page's links carry on.
    var chosenLanguages: String?
    /// Whether the request carries the admin session: the script reads the history only then, and never
    /// meets a 401 (which a browser logs as an error) for a viewer who has not signed in.
    var signedIn: Bool

    var context: [String: Any] {
        let (words, language) = PageWords.forViewer(languages: languages)
        var context: [String: Any] = [
            "language": language, "words": WebPages.context(words), "signedIn": signedIn,
            "languageOptions": LanguageMenu.options(selected: languages.first ?? "en", pageLanguage: language),
            "introHTML": WebPages.html(words.inspectorIntro, code: "/3/device/…"),
            "noRequestsHTML": WebPages.html(words.noRequests, code: "/3/device/<token>"),
        ]
        if chosenLanguages != nil { context["formLanguage"] = language }
        return context
    }
}
