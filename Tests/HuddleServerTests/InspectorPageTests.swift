import Foundation
import HTTPTypes
import HuddleCore
@testable import HuddleServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The request inspector's page (`/requests`): in the viewer's language, its script and table only for the
/// admin, so that a viewer who has not signed in meets no 401.
@Suite struct InspectorPageTests {
    /// A browser signed in as the admin on the home page: the admin cookie.
    static func signIn(_ client: any TestClientProtocol) async throws -> HTTPFields {
        let browser = try await HomePageTests.visit(client)
        let signedIn = try await client.execute(
            uri: "/admin/session", method: .post, headers: browser.headers, body: ByteBuffer(string: "adminToken=admin-secret-token" + browser.field))
        let cookie = try #require(signedIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
        return [.cookie: cookie]
    }

    @Test func aViewerNotSignedInIsToldWhereToSignInWithoutTheScript() async throws {
        try await HomePageTests.withApplication { client in
            let page = try await client.execute(uri: "/requests", method: .get, headers: [.acceptLanguage: "ru-RU,ru;q=0.9"])
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("<html lang=\"ru\">") && html.contains("<h1>Запросы провайдера</h1>"))
            #expect(html.contains("Инспектору запросов нужен токен администратора"))
            #expect(!html.contains("requests.js") && !html.contains("<table"))
            #expect(page.headers[.contentSecurityPolicy] == SiteGuard.contentSecurityPolicy)
        }
    }

    @Test func theAdminGetsTheTableAndTheDetailViewInTheirLanguage() async throws {
        try await HomePageTests.withApplication { client in
            var headers = try await Self.signIn(client)
            headers[.acceptLanguage] = "en"
            let html = String(buffer: try await client.execute(uri: "/requests?languages=ru", method: .get, headers: headers).body)
            #expect(html.contains("<script src=\"/static/requests.js\" defer></script>"))
            for word in ["Время", "Статус", "Причина", "Длительность", "Ответ", "Заголовки", "Содержимое", "Токен провайдера", "Открыть центр"] {
                #expect(html.contains(word), "\(word)")
            }
            // The words the script writes: the stream's states, the heading of one request.
            #expect(html.contains("data-live=\"на связи\"") && html.contains("data-title=\"Запрос %@\""))
            // The links carry the chosen language on.
            #expect(html.contains("href=\"/?languages=ru\"") && html.contains("data-languages=\"ru\""))
            #expect(!html.contains("Provider requests") && !html.contains(">Time<"))
        }
    }

    @Test(arguments: Viewer.languagesWithDefaultTexts)
    func everyLanguageOfTheOtherPagesWritesTheInspector(language: String) async throws {
        let words = PageWords.forViewer(languages: [language]).words
        let html = WebPages.shared.requests(InspectorPage(languages: [language], chosenLanguages: nil, signedIn: true))
        #expect(html.contains("<html lang=\"\(language)\">"))
        for text in [words.providerRequests, words.time, words.duration, words.answer, words.payload, words.notificationGone] {
            #expect(html.contains(HTML.escape(text)), "\(language): \(text)")
        }
    }
}
