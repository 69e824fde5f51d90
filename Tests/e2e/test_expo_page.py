"""Expo's Python server SDK sending one request to an iPhone and an Android phone, and both devices' pages in Debian's
chromium showing it: the iPhone's Lock Screen card, Android's shade. The two pages are put side by side in one picture
(docs/expo-phones.png was made by this test)."""
import base64
import json
import os
import pathlib
import shutil

from exponent_server_sdk import PushClient, PushMessage
from playwright.sync_api import expect

from test_expo import android, iphone
from test_inspector import sign_in_and_open_the_inspector


def test_one_request_of_the_python_sdk_shows_on_the_iphones_page_and_in_androids_shade(plain_server, browser, tmp_path):
    iphone_device, iphone_token = iphone(plain_server)
    android_device, android_token = android(plain_server)
    tickets = PushClient(host=plain_server.url).publish_multiple([
        PushMessage(to=[iphone_token, android_token][n], title="Teja", body="Lunch at one? 🍜", data={"chat": 7},
                    **({"channel_id": "chats"} if n else {"category": "msg"}))
        for n in range(2)
    ])
    assert [ticket.status for ticket in tickets] == ["ok", "ok"]

    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", reduced_motion="reduce")
    shots = []
    for device, name in ((iphone_device, "iphone"), (android_device, "android")):
        page = context.new_page()
        page.goto(f"{plain_server.url}/devices/{device['token']}#secret={device['secret']}")
        expect(page.locator("#connection")).to_have_text("live")
        if name == "iphone":
            expect(page.locator(".cards").first.locator(".title")).to_have_text("Teja")
        else:
            card = page.locator("#shade .shade-entries > .shade-entry > .shade-card").first
            expect(card.locator(".shade-title")).to_have_text("Teja")
            expect(card.locator(".shade-body")).to_have_text("Lunch at one? 🍜")
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path))
        shots.append(base64.b64encode(path.read_bytes()).decode())
        page.close()

    # Both pages in one picture: the two screenshots side by side on a page of their own.
    side_by_side = context.new_page()
    side_by_side.set_viewport_size({"width": 800, "height": 844})
    side_by_side.set_content(
        '<body style="margin:0;display:flex;gap:20px;background:#888">'
        + "".join(f'<img src="data:image/png;base64,{shot}" width="390" height="844">' for shot in shots) + "</body>")
    picture = tmp_path / "expo-phones.png"
    side_by_side.screenshot(path=str(picture))
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # HUDDLE_DOCS_PICTURES=<folder> keeps the picture (how docs/expo-phones.png was made).
    if os.environ.get("HUDDLE_DOCS_PICTURES"):
        shutil.copy(picture, pathlib.Path(os.environ["HUDDLE_DOCS_PICTURES"]) / "expo-phones.png")
    context.close()


def test_the_inspector_page_shows_an_expo_messages_ticket_receipt_and_what_was_sent(plain_server, browser):
    device, token = iphone(plain_server)
    [ticket] = PushClient(host=plain_server.url).publish_multiple([PushMessage(to=token, title="Inspected", body="by the page")])
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    sign_in_and_open_the_inspector(page, plain_server)
    page.locator("#requests tbody tr", has_text=ticket.id).click()
    expect(page.locator("#detail-sender-name")).to_have_text("Expo")
    shown = json.loads(page.locator("#detail-sender-details").text_content())
    assert shown["ticket"] == {"status": "ok", "id": ticket.id} and shown["receipt"] == {"status": "ok"}
    assert shown["apns"]["payload"]["aps"]["alert"] == {"title": "Inspected", "body": "by the page"}
    assert json.loads(page.locator("#detail-payload").text_content())["title"] == "Inspected"
    context.close()
