"""The Notification Center web page in a real browser (Debian's chromium, driven by playwright): stacks as
pushed through the provider endpoint, expanding, clearing, the lock and the language, live arrivals."""
import json
import re

import httpx
import pytest
from playwright.sync_api import expect

from conftest import TOPIC, Server, register_device

CATEGORIES = [
    {"identifier": "msg", "categorySummaryFormat": "%u more messages from %@", "hiddenPreviewsBodyPlaceholder": "%u messages"},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(str(tmp_path_factory.mktemp("web")), tls=False, extra=["--development"])
    yield server
    server.stop()


@pytest.fixture
def device(server):
    device = register_device(server, categories=CATEGORIES)
    httpx.patch(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}/settings",
                headers={"authorization": f"Bearer {device['secret']}"}, json={"showPreviews": "whenAuthenticated"})
    httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}", headers={"authorization": f"Bearer {device['secret']}"},
              json={"name": "Chat"})
    return device


def push(server, device, identifier, thread, sender, body=None, category="msg"):
    aps = {"alert": {"title": sender, "body": body or f"{sender} says {identifier}", "summary-arg": sender}, "thread-id": thread}
    if category:
        aps["category"] = category
    response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC, "apns-collapse-id": identifier},
                          content=json.dumps({"aps": aps}))
    assert response.status_code == 200, response.text


def push_conversation(server, device, prefix, thread="team", category="msg"):
    """Teja, Michele and Kritarth write in turn: Kritarth leads, and the summary names the two others."""
    for index, sender in enumerate(["Teja", "Michele", "Kritarth"]):
        push(server, device, f"{prefix}{index}", thread, sender, category=category)


def hold_back_script(page, name):
    """Holds the page's first request for the script `name`; the test lets it go with the returned list's
    route (`held[0].continue_()`), so that it can act while the page shows without its script."""
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(f"**/static/{name}", hold_the_first)
    return held


def open_page(browser, server, device, size=(390, 844), query=""):
    """The page, its secret handed over in the address's fragment as `huddle serve --demo` prints it."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{server.url}/devices/{device['token']}{query}#secret={device['secret']}")
    expect(page.locator("#connection")).to_have_text("live")
    return page


def stack(page, thread):
    return page.locator(f'.stack[data-group="{TOPIC}/{thread}"]')


def test_stacks_show_in_center_order_with_their_summaries(server, browser, device):
    push(server, device, "a1", "team", "Teja")
    push(server, device, "b1", "family", "Mom")
    push(server, device, "a2", "team", "Michele")
    push(server, device, "a3", "team", "Kritarth")
    page = open_page(browser, server, device)
    expect(page.locator(".stack")).to_have_count(2)
    assert page.locator(".stack").evaluate_all("stacks => stacks.map(s => s.dataset.group)") == [f"{TOPIC}/team", f"{TOPIC}/family"]
    team = stack(page, "team")
    expect(team.locator(".card.leading .title")).to_have_text("Kritarth")
    expect(team.locator(".summary")).to_have_text("2 more messages from Michele and Teja")
    expect(team.locator(".app-name").first).to_have_text("Chat")
    expect(team.locator(".badge").first).to_have_text("Ch")
    expect(team.locator(".peek")).to_have_count(2)
    expect(stack(page, "family").locator(".summary")).to_have_count(0)
    expect(team.locator(".card.leading time")).to_have_text("now")
    page.context.close()


def test_a_stack_expands_and_collapses_by_pointer_and_keyboard(server, browser, device):
    push_conversation(server, device, "m")
    page = open_page(browser, server, device)
    team = stack(page, "team")
    expect(team.locator(".card:visible")).to_have_count(1)
    team.locator(".card.leading").click()
    expect(team).to_have_class(re.compile(r"\bexpanded\b"))
    expect(team.locator(".card:visible")).to_have_count(3)
    # Newest first, the summary gives way to the cards themselves.
    assert team.locator(".card .title").all_inner_texts() == ["Kritarth", "Michele", "Teja"]
    expect(team.locator(".summary")).to_be_hidden()
    team.get_by_role("button", name="Show less").click()
    expect(team.locator(".card:visible")).to_have_count(1)
    # The keyboard reaches the stack and opens it.
    team.locator(".card.leading").focus()
    page.keyboard.press("Enter")
    expect(team).to_have_class(re.compile(r"\bexpanded\b"))
    expect(team.locator(".card.leading")).to_have_attribute("aria-expanded", "true")
    page.context.close()


def test_clearing_one_a_group_and_everything(server, browser, device):
    push_conversation(server, device, "c")
    push(server, device, "f0", "family", "Mom")
    push(server, device, "w0", "work", "Boss")
    page = open_page(browser, server, device)
    team = stack(page, "team")
    team.locator(".card.leading").click()
    team.locator('.card[data-id="c1"]').get_by_role("button", name="Clear this notification").click()
    expect(team.locator(".card")).to_have_count(2)
    # The stack stays open through its re-rendering.
    expect(team).to_have_class(re.compile(r"\bexpanded\b"))
    assert team.locator(".card .title").all_inner_texts() == ["Kritarth", "Teja"]
    stack(page, "family").locator(".card.leading").hover()
    stack(page, "family").get_by_role("button", name="Clear this notification").click()
    expect(stack(page, "family")).to_have_count(0)
    team.get_by_role("button", name="Clear", exact=True).click()
    expect(stack(page, "team")).to_have_count(0)
    expect(page.locator(".stack")).to_have_count(1)
    page.get_by_role("button", name="Clear All").click()
    expect(page.locator(".stack")).to_have_count(0)
    empty = page.locator("#empty")
    expect(empty).to_be_visible()
    expect(empty).to_contain_text(f"--device {device['token']}")
    expect(empty).to_contain_text(f"/3/device/{device['token']}")
    center = httpx.get(f"{server.url}/v1/devices/{device['token']}/center", headers={"authorization": f"Bearer {device['secret']}"}).json()
    assert center["groups"] == []
    page.context.close()


def test_the_lock_shows_what_a_locked_device_shows(server, browser, device):
    push_conversation(server, device, "l")
    page = open_page(browser, server, device)
    team = stack(page, "team")
    expect(team.locator(".card.leading .body")).to_have_text("Kritarth says l2")
    page.get_by_role("button", name="Unlocked").click()
    expect(page.locator("#lock")).to_have_attribute("aria-pressed", "true")
    team = stack(page, "team")
    expect(team).to_have_class(re.compile(r"\blocked\b"))
    expect(team.locator(".placeholder")).to_have_text("3 messages")
    expect(team.locator(".title")).to_have_count(0)
    expect(team.locator(".summary")).to_have_count(0)
    assert "locked=true" in page.url
    page.reload()
    expect(stack(page, "team").locator(".placeholder")).to_have_text("3 messages")
    page.get_by_role("button", name="Locked").click()
    expect(stack(page, "team").locator(".summary")).to_have_text("2 more messages from Michele and Teja")
    page.context.close()


def test_the_language_menu_rewrites_every_text(server, browser, device):
    # No category: Huddle's own default summary, which it ships in every language of the menu.
    push_conversation(server, device, "r", category=None)
    page = open_page(browser, server, device)
    team = stack(page, "team")
    expect(team.locator(".summary")).to_have_text("2 more notifications from Michele and Teja")
    page.select_option("#language", "ru")
    expect(stack(page, "team").locator(".summary")).to_have_text("Ещё 2 уведомления от Michele и Teja")
    assert page.evaluate("document.documentElement.lang") == "ru"
    page.select_option("#language", "de")
    expect(stack(page, "team").locator(".summary")).to_have_text(re.compile("Michele und Teja"))
    page.context.close()


def test_a_language_chosen_before_the_script_runs_is_taken(server, browser, device):
    # The page shows its server-rendered stacks before its deferred script runs; a reader quick enough
    # to pick a language then must not lose the choice.
    push_conversation(server, device, "early", category=None)
    context = browser.new_context(locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    held = hold_back_script(page, "app.js")
    page.goto(f"{server.url}/devices/{device['token']}#secret={device['secret']}", wait_until="commit")
    page.wait_for_selector("#language")
    page.wait_for_function("() => document.querySelector('.stack') !== null")
    page.select_option("#language", "de")
    assert len(held) == 1, "app.js was held back until after the choice"
    held[0].continue_()
    expect(stack(page, "team").locator(".summary")).to_have_text(re.compile("Michele und Teja"))
    assert "languages=de" in page.url
    expect(page.locator("#connection")).to_have_text("verbunden")
    context.close()


def test_a_push_slides_in_without_a_reload(server, browser, device):
    push(server, device, "old", "older", "Teja")
    page = open_page(browser, server, device)
    page.evaluate("window.loadedOnce = true")
    push(server, device, "new", "newer", "Michele", body="Fresh news")
    newest = page.locator(".stack").first
    expect(newest).to_have_attribute("data-group", f"{TOPIC}/newer")
    expect(newest.locator(".body")).to_have_text("Fresh news")
    expect(newest).to_have_class(re.compile(r"\barriving\b"))
    # A second push to an older stack moves it to the top.
    push(server, device, "again", "older", "Kim")
    expect(page.locator(".stack").first).to_have_attribute("data-group", f"{TOPIC}/older")
    expect(page.locator(".stack").first.locator(".summary")).to_have_text("1 more messages from Teja")
    assert page.evaluate("window.loadedOnce") is True
    page.context.close()


@pytest.mark.parametrize("size", [(390, 844), (1280, 900)], ids=["phone", "desktop"])
def test_the_page_fits_phone_and_desktop_windows(server, browser, device, size):
    push(server, device, "long", "t", "Teja", body="A long message " * 30)
    page = open_page(browser, server, device, size=size)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    card = stack(page, "t").locator(".card.leading").bounding_box()
    assert card["x"] >= 0 and card["x"] + card["width"] <= size[0]
    # Every control can be reached with the keyboard.
    reached = set()
    for _ in range(8):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.id || document.activeElement.className"))
    assert {"lock", "language", "clear-all"} <= reached
    page.context.close()


def test_the_secret_is_asked_once(server, browser, device):
    context = browser.new_context()
    page = context.new_page()
    response = page.goto(f"{server.url}/devices/{device['token']}")
    assert response.status == 401
    page.fill("#secret", "not-it")
    page.click("button[type=submit]")
    expect(page.get_by_role("alert")).to_have_text("That is not this device's secret.")
    page.fill("#secret", device["secret"])
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Notification Center")
    expect(page.locator("#connection")).to_have_text("live")
    assert any(cookie["httpOnly"] and cookie["sameSite"] == "Strict" for cookie in context.cookies())
    page.goto(f"{server.url}/devices/{device['token']}")
    expect(page.locator("#stacks")).to_be_attached()
    context.close()


# Each text's contrast with a surface's background, laid (if it lets the wallpaper through) over the lightest of
# the wallpaper (#3a4a7a, where the page's gradient starts), the worst place the surface can scroll to.
CONTRAST = """
([selectors, surface]) => {
  const channels = (color) => color.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => {
    const linear = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  };
  const [r, g, b, a = 1] = channels(getComputedStyle(document.querySelector(surface)).backgroundColor);
  const background = luminance([r, g, b].map((v, i) => v * a + [58, 74, 122][i] * (1 - a)));
  return selectors.map((selector) => {
    const text = luminance(channels(getComputedStyle(document.querySelector(selector)).color));
    return [selector, (Math.max(text, background) + 0.05) / (Math.min(text, background) + 0.05)];
  });
}
"""


def assert_readable(page, surface, selectors):
    """WCAG AA: each text at least 4.5:1 against `surface`."""
    for selector, ratio in page.evaluate(CONTRAST, [selectors, surface]):
        assert ratio >= 4.5, f"{selector}: contrast {ratio:.1f}:1 is below WCAG AA's 4.5:1"


def test_card_texts_have_readable_contrast(server, browser, device):
    push_conversation(server, device, "k")
    page = open_page(browser, server, device)
    assert_readable(page, ".card", [".card .title", ".card .body", ".card .summary", ".card .app-name", ".card time"])
    page.context.close()


def test_texts_from_pushes_are_shown_as_text_never_as_markup(server, browser, device):
    push(server, device, "x1", "t", "<b>Teja</b>", body='<img src=x onerror="window.injected=1">')
    page = open_page(browser, server, device)
    push(server, device, "x2", "t", "<i>Kim</i>", body="<script>window.injected=2</script>")
    card = stack(page, "t").locator(".card.leading")
    expect(card.locator(".title")).to_have_text("<i>Kim</i>")
    expect(card.locator(".body")).to_have_text("<script>window.injected=2</script>")
    page.reload()
    expect(stack(page, "t").locator(".card.leading .title")).to_have_text("<i>Kim</i>")
    assert page.locator("#stacks img, #stacks script, #stacks b, #stacks i").count() == 0
    assert page.evaluate("window.injected") is None
    page.context.close()
