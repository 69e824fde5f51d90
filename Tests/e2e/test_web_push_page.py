"""The web apps page in Debian's chromium: a person subscribes a web app on an iPhone through the page, pywebpush
sends to the endpoint the page shows, and the iPhone's page shows the notification, grouped as an app's."""
import json

import pytest
from playwright.sync_api import expect

from conftest import Server
from test_web_push import DECLARATIVE, application_server, push, register_iphone


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(str(tmp_path_factory.mktemp("web-push-page")), tls=False)
    yield server
    server.stop()


def test_a_person_subscribes_on_the_page_and_the_push_shows_on_the_iphone(server, browser, tmp_path):
    vapid, key = application_server()
    device, _ = register_iphone(server)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{server.url}/devices/{device['token']}#secret={device['secret']}")
    expect(page.locator("#connection")).to_have_text("live")
    page.locator(".web-apps-link").click()
    expect(page.locator("h1")).to_have_text("Web apps")
    page.fill("#name", "Shop")
    page.fill("#key", key)
    expect(page.locator("#service")).to_have_value("apple")
    page.click("#subscribe button[type=submit]")
    article = page.locator(".subscription")
    expect(article.locator("h3")).to_contain_text("Shop")
    subscription = json.loads(article.locator(".subscription-json").inner_text())
    assert subscription["endpoint"].startswith(f"{server.url}/web-push/apple/")

    assert push(server, subscription, DECLARATIVE, vapid).status_code == 201
    page.goto(f"{server.url}/devices/{device['token']}")
    card = page.locator(".cards").first
    expect(card.locator(".title")).to_have_text("Order shipped")
    expect(page.locator(".app-name").first).to_have_text("Shop")
    page.screenshot(path=str(tmp_path / "web-push-iphone.png"))

    # A key that is not one is refused on the page, in the API's words.
    page.goto(f"{server.url}/devices/{device['token']}/web-apps")
    page.fill("#origin", "https://other.example")
    page.fill("#key", "not-a-key")
    page.click("#subscribe button[type=submit]")
    expect(page.locator("#subscribe-error")).to_contain_text("applicationServerKey")
    context.close()
