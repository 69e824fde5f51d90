"""The center page's Live Activities in a real browser (Debian's chromium, driven by playwright), above the
stacks as the Lock Screen shows them: drawn with their type's template, in relevance order, refilled in place
as updates arrive, stale and ended states, an activity's alert as a passing banner, the same after a reload, in
the page's language; and notifications marked by their interruption level."""
import json
import re
import time
import uuid

import httpx
import pytest
from playwright.sync_api import expect

from conftest import TOPIC, register_device
# test_web's server fixture: a plain-HTTP server with --development, one for this module.
from test_web import assert_readable, hold_back_script, open_page, server  # noqa: F401
from test_web_events import watch_policy

LIVE = TOPIC + ".push-type.liveactivity"
# ActivityKit decodes content-state with JSONDecoder's defaults: a Date is seconds since 2001-01-01.
REFERENCE_DATE = 978_307_200
TEMPLATE = "Order {{attributes.order}}\n{{contentState.status}} · ETA {{contentState.eta|time}}"
DECLARATION = {"types": [{"name": "DeliveryAttributes", "attributes": {"order": "string"},
                          "contentState": {"status": "string", "eta": "date"}, "template": TEMPLATE}]}


@pytest.fixture
def device(server):
    device = register_device(server)
    response = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}", headers={"authorization": f"Bearer {device['secret']}"},
                         json={"name": "Food", "liveActivities": DECLARATION})
    assert response.status_code == 200, response.text
    return device


def start_token(server, device):
    response = httpx.get(f"{server.url}/v1/devices/{device['token']}/activities", headers={"authorization": f"Bearer {device['secret']}"})
    return response.json()["pushToStartTokens"][0]["token"]


def activity_ids(server, device):
    response = httpx.get(f"{server.url}/v1/devices/{device['token']}/activities", headers={"authorization": f"Bearer {device['secret']}"})
    return {activity["attributes"]["order"]: activity for activity in response.json()["activities"]}


def push_activity(server, token, aps):
    response = httpx.post(f"{server.url}/3/device/{token}", content=json.dumps({"aps": aps}),
                          headers={"apns-topic": LIVE, "apns-push-type": "liveactivity", "apns-priority": "10"})
    assert response.status_code == 200, response.text


class Clock:
    """Timestamps a little newer each time, as a provider sends them."""

    def __init__(self):
        self.now = int(time.time())

    def next(self):
        self.now += 1
        return self.now


def eta(minutes):
    return time.time() + minutes * 60 - REFERENCE_DATE


def start(server, device, clock, order, status, relevance, alert=None):
    aps = {"timestamp": clock.next(), "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": order},
           "content-state": {"status": status, "eta": eta(20)}, "relevance-score": relevance}
    if alert:
        aps["alert"] = alert
    push_activity(server, start_token(server, device), aps)


def cards(page):
    return page.locator("#live-activities .activity-card")


def snapshot(page):
    """What each card shows, in order: its state, its app, its state's word and its lines, and its times' dates."""
    return cards(page).evaluate_all("""cards => cards.map(card => ({
      state: card.dataset.state, app: card.querySelector('.activity-app').textContent,
      word: card.querySelector('.activity-state').textContent,
      lines: [...card.querySelectorAll('.activity-line')].map(line => line.textContent),
      dates: [...card.querySelectorAll('time')].map(time => time.getAttribute('datetime')),
    }))""")


def test_activities_show_above_the_stacks_change_live_and_come_back_after_a_reload(server, browser, device):
    page = open_page(browser, server, device)
    refused = watch_policy(page)
    clock = Clock()
    expect(page.locator("#live-activities")).to_be_hidden()
    expect(page.locator("#activity-banner")).to_be_hidden()

    start(server, device, clock, "41", "Cooking", relevance=10)
    expect(cards(page)).to_have_count(1)
    # The one with the higher relevance score goes first; its alert lights the screen as a banner, not a notification.
    start(server, device, clock, "42", "On its way", relevance=50, alert={"title": "Order 42", "body": "Ana is on her way"})
    expect(cards(page)).to_have_count(2)
    expect(cards(page).locator(".activity-line:first-child")).to_have_text(["Order 42", "Order 41"])
    banner = page.locator("#activity-banner")
    expect(banner).to_be_visible()
    expect(banner.locator(".title")).to_have_text("Order 42")
    expect(banner.locator(".body")).to_have_text("Ana is on her way")
    expect(banner.locator(".activity-app")).to_have_text("Food")
    expect(page.locator(".stack")).to_have_count(0)
    # Drawn with the template: the ETA, a date since 2001, as a time of day in the viewer's clock.
    second_line = cards(page).first.locator(".activity-line").nth(1)
    expect(second_line).to_have_text(re.compile(r"^On its way · ETA \d{1,2}:\d{2}\s?[AP]M$"))
    expect(cards(page).first.locator(".activity-app")).to_have_text("Food")
    # The stacks come after the activities, as on the Lock Screen.
    assert page.evaluate("""() => Boolean(document.getElementById('live-activities').compareDocumentPosition(
        document.getElementById('stacks')) & Node.DOCUMENT_POSITION_FOLLOWING)""")

    ids = activity_ids(server, device)
    # An update changes its card in place: the same element, new text.
    cards(page).nth(1).evaluate("card => { card.dataset.marked = 'yes'; }")
    push_activity(server, ids["41"]["updateToken"], {"timestamp": clock.next(), "event": "update",
                                                     "content-state": {"status": "Ready", "eta": eta(5)}, "relevance-score": 10})
    expect(cards(page).nth(1).locator(".activity-line").nth(1)).to_have_text(re.compile(r"^Ready · ETA "))
    assert cards(page).nth(1).evaluate("card => card.dataset.marked") == "yes"
    # An update whose stale date has passed leaves the card not updated; an end leaves it ended.
    push_activity(server, ids["42"]["updateToken"], {"timestamp": clock.next(), "event": "update", "stale-date": int(time.time()) - 60,
                                                     "content-state": {"status": "Stuck in traffic", "eta": eta(30)}, "relevance-score": 50})
    expect(cards(page).first).to_have_attribute("data-state", "stale")
    expect(cards(page).first.locator(".activity-state")).to_have_text("Not updated")
    push_activity(server, ids["41"]["updateToken"], {"timestamp": clock.next(), "event": "end",
                                                     "content-state": {"status": "Delivered", "eta": eta(0)}})
    expect(cards(page).nth(1)).to_have_attribute("data-state", "ended")
    expect(cards(page).nth(1).locator(".activity-state")).to_have_text("Ended")
    live = snapshot(page)
    assert [card["state"] for card in live] == ["stale", "ended"]
    assert live[0]["lines"][0] == "Order 42" and live[0]["lines"][1].startswith("Stuck in traffic · ETA ")

    # The server renders the same cards; the script writes the same times.
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    expect(cards(page)).to_have_count(2)
    assert snapshot(page) == live
    expect(banner).to_be_hidden()
    # Removed as a person removes it: its card leaves live.
    response = httpx.delete(f"{server.url}/v1/devices/{device['token']}/activities/{ids['41']['id']}",
                            headers={"authorization": f"Bearer {device['secret']}"})
    assert response.status_code in (200, 204), response.text
    expect(cards(page)).to_have_count(1)
    assert refused == []
    page.context.close()


def test_an_activity_change_between_the_page_and_its_stream_is_not_lost(server, browser, device):
    clock = Clock()
    start(server, device, clock, "7", "Cooking", relevance=0)
    page = browser.new_context(locale="en-US", reduced_motion="reduce").new_page()
    held = hold_back_script(page, "app.js")
    page.goto(f"{server.url}/devices/{device['token']}#secret={device['secret']}", wait_until="commit")
    expect(cards(page)).to_have_count(1)
    push_activity(server, activity_ids(server, device)["7"]["updateToken"], {
        "timestamp": clock.next(), "event": "update", "content-state": {"status": "Baking", "eta": eta(9)}})
    assert len(held) == 1, "app.js was held back until after the push"
    held[0].continue_()
    expect(page.locator("#connection")).to_have_text("live")
    expect(cards(page).locator(".activity-line").nth(1)).to_have_text(re.compile(r"^Baking · ETA "))
    page.context.close()


HOSTILE = "<img src=x onerror=\"window.injected=1\"><\u0301script>window.injected=2</\u0301script>{{attributes.order}}"


def test_values_and_templates_are_shown_as_text_never_as_markup(server, browser, device):
    hostile_template = {"types": [{"name": "DeliveryAttributes", "template": "<b>{{attributes.order}}</b> {{contentState.status}} {{"}]}
    response = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}", headers={"authorization": f"Bearer {device['secret']}"},
                         json={"liveActivities": hostile_template})
    assert response.status_code == 200, response.text
    page = open_page(browser, server, device)
    refused = watch_policy(page)
    push_activity(server, start_token(server, device), {
        "timestamp": int(time.time()), "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": HOSTILE},
        "content-state": {"status": "\"'><i>x</i>"}, "alert": {"title": "<img src=y onerror=\"window.injected=3\">", "body": HOSTILE}})

    def check():
        expect(cards(page)).to_have_count(1)
        expect(cards(page).locator(".activity-line")).to_have_text(f"<b>{HOSTILE}</b> \"'><i>x</i> {{{{")
        assert page.locator("#live-activities img, #live-activities script, #live-activities b, #live-activities i").count() == 0
        assert page.evaluate("window.injected") is None

    check()
    expect(page.locator("#activity-banner .title")).to_have_text("<img src=y onerror=\"window.injected=3\">")
    assert page.locator("#activity-banner img").count() == 0
    page.reload()
    check()
    assert refused == []
    page.context.close()


def test_a_russian_page_says_not_updated_and_ended_in_russian(server, browser, device):
    clock = Clock()
    start(server, device, clock, "1", "Cooking", relevance=5)
    start(server, device, clock, "2", "Cooking", relevance=1)
    ids = activity_ids(server, device)
    push_activity(server, ids["1"]["updateToken"], {"timestamp": clock.next(), "event": "update", "stale-date": int(time.time()) - 5,
                                                    "content-state": {"status": "Late", "eta": eta(3)}, "relevance-score": 5})
    push_activity(server, ids["2"]["updateToken"], {"timestamp": clock.next(), "event": "end",
                                                    "content-state": {"status": "Done", "eta": eta(0)}})
    page = browser.new_context(locale="ru-RU", reduced_motion="reduce").new_page()
    page.goto(f"{server.url}/devices/{device['token']}?languages=ru#secret={device['secret']}")
    expect(page.locator("#connection")).to_have_text("на связи")
    expect(page.locator("#live-activities")).to_have_attribute("aria-label", "Живые активности")
    expect(cards(page).locator(".activity-state")).to_have_text(["Не обновлено", "Завершено"])
    page.context.close()


def push_notification(server, device, identifier, thread, level):
    aps = {"alert": {"title": f"{level} title", "body": f"{level} body"}, "thread-id": thread, "interruption-level": level}
    response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC, "apns-collapse-id": identifier},
                          content=json.dumps({"aps": aps}))
    assert response.status_code == 200, response.text


def test_notifications_are_marked_by_their_interruption_level(server, browser, device):
    page = open_page(browser, server, device)
    push_notification(server, device, "ts", "urgent", "time-sensitive")
    push_notification(server, device, "q", "quiet", "passive")
    push_notification(server, device, "c", "alarm", "critical")
    push_notification(server, device, "a", "plain", "active")
    expect(page.locator(".stack")).to_have_count(4)

    def stack(thread):
        return page.locator(f'.stack[data-group="{TOPIC}/{thread}"]')

    expect(stack("urgent").locator(".level")).to_have_text("Time Sensitive")
    expect(stack("alarm").locator(".level")).to_have_text("Critical Alert")
    expect(stack("quiet").locator(".level")).to_have_text("Delivered Quietly")
    expect(stack("plain").locator(".level")).to_have_count(0)
    # A passive notification arrives quietly: no slide-in; the others slide in.
    assert "arriving" not in stack("quiet").get_attribute("class")
    assert "arriving" in stack("urgent").get_attribute("class")
    assert_readable(page, ".card", [".card .level[data-level='time-sensitive']", ".card .level[data-level='critical']",
                                    ".card .level[data-level='passive']"])
    # The rendered JSON is unchanged: the level and the score were there already.
    page.reload()
    expect(stack("urgent").locator(".level")).to_have_text("Time Sensitive")
    page.context.close()


def test_activity_texts_are_readable(server, browser, device):
    clock = Clock()
    page = open_page(browser, server, device)
    start(server, device, clock, "8", "On its way", relevance=0, alert={"title": "Order 8", "body": "Soon"})
    expect(cards(page)).to_have_count(1)
    expect(page.locator("#activity-banner")).to_be_visible()
    assert_readable(page, ".activity-card", [".activity-card .activity-app", ".activity-card .activity-line", ".activity-card time"])
    assert_readable(page, "#activity-banner", ["#activity-banner .title", "#activity-banner .body", "#activity-banner .activity-app"])
    ids = activity_ids(server, device)
    push_activity(server, ids["8"]["updateToken"], {"timestamp": clock.next(), "event": "update", "stale-date": int(time.time()) - 5,
                                                    "content-state": {"status": "Late", "eta": eta(3)}})
    expect(cards(page).first).to_have_attribute("data-state", "stale")
    assert_readable(page, ".activity-card", [".activity-card .activity-state", ".activity-card .activity-line"])
    page.context.close()
