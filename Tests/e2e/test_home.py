"""The home page and the pages' own words in a real browser (Debian's chromium, driven by playwright): a
device made in one click, the demo opened from the home page, every word of a page switched to Russian."""
import re
import time

import pytest
from playwright.sync_api import expect

from conftest import ADMIN_TOKEN, TOPIC, Server
from test_web import CATEGORIES, hold_back_script, push_conversation, register_device, stack

# Names and codes the pages write in every language: the product, Apple's, the example app's (Chat), and
# command-line words.
NAMES = {"Huddle", "iOS", "APNs", "OpenAPI", "WWDC", "iPhone", "Chat"}

VISIBLE_CHROME_WORDS = """
() => {
  // Every visible text node of the page's own: not a notification's texts (the app's and the pusher's),
  // not the device's name, not code.
  const own = (element) => !element.closest(".card .title, .card .subtitle, .card .body, .card .summary, .card .placeholder, .app-name, .badge, .stack-name, .device-name, .device-label, code, pre, option");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || !own(element) || element.closest("script")) continue;
    if (!element.checkVisibility()) continue;
    texts.push(node.textContent.trim());
  }
  // A stack's label is its app's name and count.
  for (const element of document.querySelectorAll("[aria-label]:not(.stack), [title]")) {
    if (own(element)) texts.push(element.getAttribute("aria-label") ?? "", element.getAttribute("title") ?? "");
  }
  const select = document.querySelector("#language");
  if (select) texts.push(select.selectedOptions[0].textContent);
  return texts.filter((text) => text);
}
"""


def latin_words(texts):
    """The words in Latin letters, other than names every language writes the same."""
    words = set()
    for text in texts:
        words |= {word for word in re.findall(r"[A-Za-z]+", text)}
    return words - NAMES


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(str(tmp_path_factory.mktemp("home")), tls=False, extra=["--development", "--demo"])
    yield server
    server.stop()


def new_page(browser, locale="en-US", size=(1280, 900)):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=locale, reduced_motion="reduce")
    return context.new_page()


def test_one_click_creates_a_device_and_opens_its_center(server, browser):
    page = new_page(browser)
    page.goto(f"{server.url}/")
    expect(page.locator("h1")).to_have_text("Huddle")
    page.fill("#device-name", "Kitchen iPad")
    page.get_by_role("button", name="Create and open").click()
    expect(page.locator("h1")).to_have_text("Notification Center")
    expect(page.locator("#connection")).to_have_text("live")
    match = re.search(r"/devices/([0-9a-f]{64})$", page.url)
    assert match, page.url
    # The secret was traded for the page's cookie and taken out of the address.
    assert "secret" not in page.url
    expect(page.locator(".device")).to_contain_text("Kitchen iPad")
    empty = page.locator("#empty")
    expect(empty).to_be_visible()
    expect(empty).to_contain_text(f"huddle send push.json --url {server.url} --device {match.group(1)}")
    expect(empty).to_contain_text(f"curl --http2-prior-knowledge {server.url}/3/device/{match.group(1)}")
    # The home page shows no secret, and links what a newcomer looks for.
    page.goto(f"{server.url}/")
    assert not re.search(r"[0-9a-f]{64}", page.content())
    expect(page.get_by_role("link", name="OpenAPI document")).to_have_attribute("href", "/openapi.yaml")
    expect(page.get_by_role("link", name="Metrics")).to_have_attribute("href", "/metrics")
    page.context.close()


def test_the_admin_token_lists_the_servers_devices(server, browser):
    device = register_device(server, categories=CATEGORIES)
    page = new_page(browser)
    page.goto(f"{server.url}/")
    page.fill("#admin-token", "not-it")
    page.click("#show-devices")
    expect(page.get_by_role("alert")).to_have_text("That is not this server's admin token.")
    expect(page.locator(".listed-device")).to_have_count(0)
    page.fill("#admin-token", ADMIN_TOKEN)
    page.click("#show-devices")
    listed = page.locator(f'.listed-device[data-token="{device["token"]}"]')
    expect(listed.locator(".device-name")).to_have_text("e2e")
    # The demo device is listed too, newest first: the demo was made when the server started.
    tokens = page.locator(".listed-device").evaluate_all("items => items.map(item => item.dataset.token)")
    assert tokens.index(device["token"]) < len(tokens) - 1 and len(tokens) >= 2
    listed.locator("summary").click()
    expect(listed.locator(".send-command")).to_contain_text(f"--url {server.url} --device {device['token']} --topic {TOPIC}")
    expect(listed.locator(".curl-command")).to_contain_text(f"{server.url}/3/device/{device['token']} -H 'apns-topic: {TOPIC}'")
    # No secret reaches the page, and the cookie is not the admin token.
    assert device["secret"] not in page.content()
    assert all(ADMIN_TOKEN not in cookie["value"] for cookie in page.context.cookies())
    listed.get_by_role("link", name="Open center").click()
    expect(page.locator("#secret")).to_be_visible()
    page.go_back()
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#admin-token")).to_be_visible()
    page.context.close()


def test_the_demo_opens_from_the_home_page_and_its_locked_placeholders_are_singular(server, browser):
    page = new_page(browser, size=(390, 844))
    page.goto(f"{server.url}/")
    page.get_by_role("button", name="Open the demo").click()
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator(".stack")).to_have_count(9)
    page.get_by_role("button", name="Unlocked").click()
    expect(page.locator("#lock")).to_have_attribute("aria-pressed", "true")
    placeholders = page.locator(".stack.locked .placeholder")
    expect(placeholders).to_have_count(9)
    texts = placeholders.all_inner_texts()
    assert "1 email" in texts and "1 event alert" in texts, texts
    assert not [text for text in texts if re.match(r"1 \w+s$", text)], texts
    # In Russian, the same stacks take Russian plural forms.
    page.select_option("#language", "ru")
    expect(page.locator(".stack.locked .placeholder").first).to_be_visible()
    texts = page.locator(".stack.locked .placeholder").all_inner_texts()
    assert "1 письмо" in texts and "3 письма" in texts and "1 напоминание о событии" in texts, texts
    page.context.close()


def test_the_demo_address_serve_prints_opens_the_center_without_a_refusal(server, browser):
    # The address in the log is the demo's sign-in page, its secret in the fragment (never sent).
    deadline = time.time() + 10
    while not (match := re.search(r"demo device: open (http\S+/devices/([0-9a-f]{64})/session#secret=[0-9a-f]{64})", server.log_path.read_text())):
        assert time.time() < deadline, server.log_path.read_text()
        time.sleep(0.1)
    address, token = match.group(1), match.group(2)
    page = new_page(browser)
    refused, errors = [], []
    page.on("response", lambda response: refused.append(f"{response.status} {response.url}") if response.status >= 400 else None)
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(address)
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator(".stack")).to_have_count(9)
    assert page.url == f"{server.url}/devices/{token}"
    # Signed in by its script, then the center: nothing answered 401 on the way, nothing logged an error.
    assert refused == [] and errors == [], (refused, errors)
    page.context.close()


def test_a_page_switched_to_russian_has_no_english_word_of_its_own_left(server, browser):
    device = register_device(server, categories=CATEGORIES)
    push_conversation(server, device, "ru", category=None)
    page = new_page(browser)
    page.goto(f"{server.url}/devices/{device['token']}#secret={device['secret']}")
    expect(page.locator("#connection")).to_have_text("live")
    # In English first: the check finds the page's words, so it would find them left untranslated.
    english = latin_words(page.evaluate(VISIBLE_CHROME_WORDS))
    assert {"Notification", "Center", "Unlocked", "Clear", "All", "now"} <= english, english
    page.select_option("#language", "ru")
    expect(page.locator("h1")).to_have_text("Центр уведомлений")
    expect(page.locator("#connection")).to_have_text("на связи")
    team = stack(page, "team")
    expect(team.locator(".summary")).to_have_text("Ещё 2 уведомления от Michele и Teja")
    expect(team.locator(".card.leading time")).to_have_text("сейчас")
    team.locator(".card.leading").click()
    expect(team.get_by_role("button", name="Свернуть")).to_be_visible()
    assert latin_words(page.evaluate(VISIBLE_CHROME_WORDS)) == set()
    page.get_by_role("button", name="Разблокировано").click()
    expect(page.locator("#lock")).to_have_text("Заблокировано")
    assert latin_words(page.evaluate(VISIBLE_CHROME_WORDS)) == set()
    # The home page, a device page that asks for its secret (at its address and as a sign-in page) and the
    # inspector (signed out), in Russian too.
    for path in ["/?languages=ru", f"/devices/{'0' * 64}?languages=ru", f"/devices/{'0' * 64}/session?languages=ru",
                 "/requests?languages=ru"]:
        page.goto(f"{server.url}{path}")
        expect(page.locator("h1")).to_be_visible()
        assert latin_words(page.evaluate(VISIBLE_CHROME_WORDS)) == set(), path
    page.context.close()


def test_a_browser_that_asks_for_russian_gets_the_page_in_russian(server, browser):
    page = new_page(browser, locale="ru-RU")
    page.goto(f"{server.url}/")
    expect(page.get_by_role("button", name="Создать и открыть")).to_be_visible()
    page.get_by_role("button", name="Создать и открыть").click()
    expect(page.locator("h1")).to_have_text("Центр уведомлений")
    expect(page.locator("#empty h2")).to_have_text("Нет более ранних уведомлений")
    page.context.close()


def test_a_language_chosen_before_the_home_script_runs_is_taken(server, browser):
    page = new_page(browser)
    held = hold_back_script(page, "home.js")
    page.goto(f"{server.url}/", wait_until="commit")
    page.wait_for_selector("#language")
    page.select_option("#language", "ru")
    assert len(held) == 1, "home.js was held back until after the choice"
    held[0].continue_()
    expect(page.get_by_role("button", name="Создать и открыть")).to_be_visible()
    assert "languages=ru" in page.url
    page.context.close()
