"""The center page's background activity in a real browser (Debian's chromium, driven by playwright): what the
device did with the pushes that showed nothing (device events), newest first, live from the stream and rendered
with the page, its payload on demand, shown as text whatever it holds, in the page's language."""
import json
import uuid

import httpx
import pytest
from playwright.sync_api import expect

from conftest import TOPIC, register_device
# test_web's server fixture: a plain-HTTP server with --development, one for this module.
from test_web import assert_readable, hold_back_script, open_page, server  # noqa: F401

BACKGROUND = {"aps": {"content-available": 1}, "sync": "inbox"}
VOIP = {"aps": {}, "caller": "Teja"}


@pytest.fixture
def device(server):
    return register_device(server)


def push(server, device, push_type, payload, suffix=""):
    headers = {"apns-topic": TOPIC + suffix, "apns-push-type": push_type, "apns-id": str(uuid.uuid4())}
    if push_type == "background":
        headers["apns-priority"] = "5"
    response = httpx.post(f"{server.url}/3/device/{device['token']}", headers=headers, content=json.dumps(payload), timeout=30)
    assert response.status_code == 200, response.text


def watch_policy(page):
    """The messages the browser logs when the page's Content-Security-Policy refuses something."""
    refused = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)
    return refused


def rows(page):
    return page.locator("#activity .event")


def test_events_arrive_live_newest_first_and_are_there_after_a_reload(server, browser, device):
    page = open_page(browser, server, device)
    refused = watch_policy(page)
    # Nothing done in the background yet: no section at all.
    expect(page.locator("#activity")).to_be_hidden()
    push(server, device, "background", BACKGROUND)
    expect(rows(page)).to_have_count(1)
    expect(page.locator("#activity")).to_be_visible()
    expect(page.locator("#activity-title")).to_have_text("Background Activity")
    push(server, device, "voip", VOIP, suffix=".voip")
    expect(rows(page)).to_have_count(2)
    expect(rows(page).locator(".push-type")).to_have_text(["voip", "background"])
    expect(rows(page).locator(".event-app")).to_have_text([TOPIC, TOPIC])
    expect(rows(page).locator(".event-action")).to_have_text([
        "handed the push to the app through PushKit; the app must report an incoming call to CallKit, or iOS ends it",
        "woke the app in the background to fetch new content; iOS may hold back such pushes when they come often"])
    expect(rows(page).locator("time").first).to_have_text("now")
    # The payload waits behind its summary, indented.
    voip = rows(page).first
    expect(voip.locator("pre")).to_be_hidden()
    voip.get_by_text("Payload").click()
    expect(voip.locator("pre")).to_be_visible()
    live = {
        "types": rows(page).locator(".push-type").all_inner_texts(), "actions": rows(page).locator(".event-action").all_inner_texts(),
        "payloads": rows(page).locator("pre").all_text_contents(), "changes": rows(page).evaluate_all("rows => rows.map(r => r.dataset.change)"),
    }
    assert json.loads(live["payloads"][0]) == VOIP and '\n  "caller": "Teja"' in live["payloads"][0]
    # The server renders the same rows, in the same order, with the same indented payloads.
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    expect(rows(page)).to_have_count(2)
    assert rows(page).locator(".push-type").all_inner_texts() == live["types"]
    assert rows(page).locator(".event-action").all_inner_texts() == live["actions"]
    assert rows(page).locator("pre").all_text_contents() == live["payloads"]
    assert rows(page).evaluate_all("rows => rows.map(r => r.dataset.change)") == live["changes"]
    expect(rows(page).locator("time").first).to_have_text("now")
    # The badges' tints come from the style sheet, by push type.
    tints = rows(page).locator(".push-type").evaluate_all("badges => badges.map(b => getComputedStyle(b).color)")
    assert tints[0] != tints[1]
    # An event after the reload still comes live, on top; a notification does not land in the section.
    push(server, device, "widgets", {"aps": {"content-changed": True}}, suffix=".push-type.widgets")
    expect(rows(page).locator(".push-type")).to_have_text(["widgets", "voip", "background"])
    response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC},
                          content=json.dumps({"aps": {"alert": {"title": "Teja", "body": "hi"}}}))
    assert response.status_code == 200
    expect(page.locator(".stack")).to_have_count(1)
    expect(rows(page)).to_have_count(3)
    assert refused == []
    page.context.close()


def test_an_event_between_the_page_and_its_stream_is_not_lost(server, browser, device):
    """The page shows the events up to its change; one recorded before its script opens the stream comes then."""
    push(server, device, "voip", VOIP, suffix=".voip")
    page = browser.new_context(locale="en-US", reduced_motion="reduce").new_page()
    held = hold_back_script(page, "app.js")
    page.goto(f"{server.url}/devices/{device['token']}#secret={device['secret']}", wait_until="commit")
    expect(rows(page)).to_have_count(1)
    push(server, device, "background", BACKGROUND)
    assert len(held) == 1, "app.js was held back until after the push"
    held[0].continue_()
    expect(page.locator("#connection")).to_have_text("live")
    expect(rows(page).locator(".push-type")).to_have_text(["background", "voip"])
    page.context.close()


def test_the_section_keeps_the_latest_twenty(server, browser, device):
    for index in range(21):
        push(server, device, "background", {"aps": {"content-available": 1}, "n": index})
    page = open_page(browser, server, device)
    expect(rows(page)).to_have_count(20)
    assert json.loads(rows(page).locator("pre").first.text_content())["n"] == 20
    push(server, device, "background", {"aps": {"content-available": 1}, "n": 21})
    expect(rows(page).first.locator("pre")).to_have_text(json.dumps({"aps": {"content-available": 1}, "n": 21}, indent=2))
    expect(rows(page)).to_have_count(20)
    assert json.loads(rows(page).locator("pre").last.text_content())["n"] == 2
    page.context.close()


HOSTILE = {
    "aps": {"content-available": 1},
    "image": "<img src=x onerror=\"window.injected=1\">",
    # A combining mark after "<" makes one grapheme cluster that is not equal to "<", yet the browser reads a "<".
    "cluster": "<\u0301script>window.injected=2</\u0301script>",
    "quote": "\"'><b>bold</b>",
}


def test_payloads_are_shown_as_text_never_as_markup(server, browser, device):
    page = open_page(browser, server, device)
    refused = watch_policy(page)
    push(server, device, "background", HOSTILE)
    expect(rows(page)).to_have_count(1)

    def check():
        payload = rows(page).first.locator("pre")
        assert json.loads(payload.text_content()) == HOSTILE
        for text in ("<img src=x onerror=", "<\u0301script>window.injected=2</\u0301script>", "<b>bold</b>"):
            assert text in payload.text_content()
        assert page.locator("#activity img, #activity script, #activity b").count() == 0
        assert page.evaluate("window.injected") is None

    check()
    page.reload()
    expect(rows(page)).to_have_count(1)
    check()
    assert refused == []
    page.context.close()


def test_a_russian_page_titles_the_section_in_russian(server, browser, device):
    push(server, device, "voip", VOIP, suffix=".voip")
    page = browser.new_context(locale="ru-RU", reduced_motion="reduce").new_page()
    page.goto(f"{server.url}/devices/{device['token']}?languages=ru#secret={device['secret']}")
    expect(page.locator("#activity-title")).to_have_text("Фоновая активность")
    expect(rows(page).locator("summary")).to_have_text("Содержимое")
    page.context.close()


def test_texts_of_the_section_are_readable_on_its_glass(server, browser, device):
    push(server, device, "voip", VOIP, suffix=".voip")
    page = open_page(browser, server, device)
    assert_readable(page, ".events", [".event-action", ".event-app", ".event time", ".push-type", ".event-payload summary", ".section-title"])
    page.context.close()
