"""Issue 43 on the page, in Debian's chromium: the summary card as iOS presents it (its title in the page's
language, the featured notification, its apps), the Focus mark and a silenced card's mark, what waits for the next
summary, and the Lock Screen's Count, Stack and List on a locked page, all arriving live."""
import json

import httpx
import pytest
from playwright.sync_api import expect

from conftest import TOPIC, Server

OTHER = "com.example.other"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(str(tmp_path_factory.mktemp("web-summary")), tls=False, extra=["--development"])
    yield server
    server.stop()


@pytest.fixture
def device(server):
    device = httpx.post(f"{server.url}/v1/devices", json={"name": "Summary"}).json()
    device["auth"] = {"authorization": f"Bearer {device['secret']}"}
    device["base"] = f"{server.url}/v1/devices/{device['token']}"
    httpx.put(f"{device['base']}/apps/{TOPIC}", headers=device["auth"], json={"name": "Podcasts", "settings": {"scheduledSummary": True}})
    httpx.put(f"{device['base']}/apps/{OTHER}", headers=device["auth"], json={"name": "Mail"})
    settings = httpx.patch(f"{device['base']}/settings", headers=device["auth"],
                           json={"summary": {"enabled": True, "times": ["08:00"]}, "focus": {"name": "Work", "on": True}})
    assert settings.status_code == 200, settings.text
    return device


def push(server, device, identifier, topic=TOPIC, thread=None, relevance=None):
    aps = {"alert": {"title": identifier.capitalize(), "body": f"About {identifier}"}}
    if thread:
        aps["thread-id"] = thread
    if relevance is not None:
        aps["relevance-score"] = relevance
    response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": topic, "apns-collapse-id": identifier},
                          content=json.dumps({"aps": aps}))
    assert response.status_code == 200, response.text


def open_page(browser, server, device, query=""):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{server.url}/devices/{device['token']}{query}#secret={device['secret']}")
    # "live" in the page's language.
    expect(page.locator("#connection")).to_have_text(page.locator("#connection").get_attribute("data-live"))
    return page


def test_the_summary_card_the_focus_and_what_waits_arrive_live(server, browser, device):
    page = open_page(browser, server, device, "?languages=fr")
    expect(page.locator(".focus-mark")).to_have_text("◐ Work")
    push(server, device, "interview", relevance=0.2)
    push(server, device, "trailer", relevance=0.9)
    push(server, device, "invoice", topic=OTHER)
    # Held: not on the page, but counted with the time of their summary; the other app's card says its Focus.
    expect(page.locator(".held-line")).to_contain_text("2")
    expect(page.locator(".held-line time")).to_have_text("08:00")
    expect(page.locator('.card[data-id="invoice"] .silenced')).to_have_text("◐ Work")
    expect(page.locator('.card[data-id="trailer"]')).to_have_count(0)
    assert httpx.post(f"{device['base']}/summary", headers=device["auth"]).status_code == 200
    card = page.locator(".summary-card")
    expect(card.locator(".summary-title")).to_have_text("Votre résumé du matin")
    expect(card.locator(".featured-item").first).to_contain_text("Trailer")
    expect(card.locator(".summary-app")).to_have_count(1)
    expect(card.locator(".summary-app-name")).to_have_text("Podcasts")
    expect(page.locator(".held-line")).to_have_count(0)
    expect(page.locator('.card[data-id="trailer"]')).to_have_count(1)
    page.context.close()


@pytest.mark.parametrize("layout", ["count", "stack", "list"])
def test_a_locked_page_shows_the_lock_screens_layout(server, browser, device, layout):
    assert httpx.patch(f"{device['base']}/settings", headers=device["auth"],
                       json={"summary": {"enabled": False}, "focus": {"on": False}, "lockScreen": layout}).status_code == 200
    for index, thread in enumerate(["a", "b", "c"]):
        push(server, device, f"n{index}", thread=thread)
    page = open_page(browser, server, device, "?locked=true")
    expect(page.locator("body")).to_have_attribute("data-layout", layout)
    visible = page.locator("#stacks > .stack:visible")
    if layout == "count":
        expect(page.locator(".lock-count")).to_have_text("3 Notifications")
        expect(visible).to_have_count(0)
        # The count follows a push that arrives while the page is open.
        push(server, device, "n3", thread="d")
        expect(page.locator(".lock-count")).to_have_text("4 Notifications")
    elif layout == "stack":
        expect(page.locator(".lock-count")).to_be_hidden()
        expect(visible).to_have_count(1)
        expect(visible.first).to_have_attribute("data-group", f"{TOPIC}/c")
    else:
        expect(visible).to_have_count(3)
    # Unlocked, the page shows every stack whatever the layout.
    page.locator("#lock").click()
    expect(page.locator("#stacks > .stack:visible")).to_have_count(4 if layout == "count" else 3)
    page.context.close()
