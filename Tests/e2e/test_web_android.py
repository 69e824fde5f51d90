"""Issue 42 on the page, in Debian's chromium: an Android phone's page (`/devices/<token>`) is a Pixel-like phone whose
shade the server renders from `AndroidShade`. Messages are sent with Google's unchanged Admin SDK for Python, as
test_fcm.py sends them (a key file from `huddle fcm service-account`, only the SDK's address changed): they show as
cards, an app's fourth bundles them into one collapsed group whose button expands it, later ones arrive without a
reload, and the lock screen (`?locked=true`) shows "Contents hidden" for private ones and nothing of secret ones."""

import httpx
import pytest
from firebase_admin import messaging
from playwright.sync_api import expect

from conftest import ANDROID_PACKAGE, CHATS_CHANNEL, FCM_PROJECT, TOPIC, installed_app, register_android_phone, register_device

PROJECT = FCM_PROJECT
CHAT = ANDROID_PACKAGE
NEWS = "com.example.android.news"


def android_phone(server):
    """An Android phone with Chat, whose channel is of high importance, and News, which created none (its messages
    post to the Firebase SDK's fallback channel); returns the device and each app's registration token."""
    device, _, apps = register_android_phone(server, {CHAT: {"name": "Chat", "channels": [CHATS_CHANNEL]}, NEWS: {"name": "News"}})
    return device, {package: app["fcmToken"] for package, app in apps.items()}


def send(app, token, title, body, visibility=None):
    messaging.send(messaging.Message(
        token=token, notification=messaging.Notification(title=title, body=body),
        android=messaging.AndroidConfig(notification=messaging.AndroidNotification(channel_id="chats", visibility=visibility)),
    ), app=app)


# What a page asks for that a change could make it ask for again: a load, a fetch, a stream.
FOLLOWED = ("document", "fetch", "xhr", "eventsource")


def open_page(browser, server, device, query=""):
    """The device's page, signed in by the link with its secret; and the addresses of every document, fetch and stream
    it asks for (a page that follows its stream asks for none of them again when a message arrives)."""
    context = browser.new_context(viewport={"width": 430, "height": 932}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    documents = []
    page.on("request", lambda request: documents.append(request.url) if request.resource_type in FOLLOWED else None)
    page.goto(f"{server.url}/devices/{device['token']}{query}#secret={device['secret']}")
    expect(page.locator("#connection")).to_have_text("live")
    return page, documents


def test_the_shade_shows_cards_groups_an_apps_fourth_and_follows_the_stream(plain_server, browser, fcm_app):
    device, tokens = android_phone(plain_server)
    send(fcm_app, tokens[NEWS], "Score", "Lyon 2–1 Porto")
    send(fcm_app, tokens[CHAT], "Teja", "Lunch at one?")
    send(fcm_app, tokens[CHAT], "<b>Michele</b>", "Hall 2 🎟️ café")
    page, documents = open_page(browser, plain_server, device)
    expect(page.locator("h1")).to_have_text("Notifications")
    expect(page.locator("#stacks")).to_have_count(0)
    shade = page.locator("#shade")
    cards = shade.locator(".shade-entries > .shade-entry > .shade-card")
    expect(cards).to_have_count(3)
    # Newest first; the newest, on a high-importance channel, peeks; markup in a title is text.
    expect(cards.nth(0).locator(".shade-title")).to_have_text("<b>Michele</b>")
    expect(cards.nth(0).locator(".shade-body")).to_have_text("Hall 2 🎟️ café")
    expect(cards.nth(0)).to_have_class("shade-card heads-up")
    expect(cards.nth(0).locator(".shade-app")).to_have_text("Chat")
    expect(cards.nth(0).locator(".shade-icon")).to_have_text("Ch")
    expect(cards.nth(1).locator(".shade-title")).to_have_text("Teja")
    expect(cards.nth(1)).to_have_class("shade-card")
    expect(cards.nth(2).locator(".shade-app")).to_have_text("News")
    expect(cards.nth(2)).to_have_attribute("data-channel", "fcm_fallback_notification_channel")
    expect(shade.locator("b")).to_have_count(0)
    loaded = len(documents)

    # A message that arrives while the page is open shows at once, at the top.
    send(fcm_app, tokens[CHAT], "Ana", "On my way")
    expect(cards).to_have_count(4)
    expect(cards.nth(0).locator(".shade-title")).to_have_text("Ana")
    expect(cards.nth(0)).to_have_class("shade-card heads-up")
    expect(shade.locator(".heads-up")).to_have_count(1)

    # Chat's fourth bundles Chat's into one collapsed group, its newest lines first; News keeps its card.
    send(fcm_app, tokens[CHAT], "Bo", "Hi")
    group = shade.locator(".shade-group")
    expect(group).to_have_count(1)
    expect(group).to_have_attribute("data-count", "4")
    expect(group.locator("> .shade-head .shade-app")).to_have_text("Chat")
    expect(group.locator(".shade-line")).to_have_text(["Bo: Hi", "Ana: On my way", "<b>Michele</b>: Hall 2 🎟️ café", "Teja: Lunch at one?"])
    expect(group.locator(".shade-more")).to_have_count(0)
    expect(group.locator(".shade-children")).to_be_hidden()
    expect(cards).to_have_count(1)
    expect(cards.nth(0).locator(".shade-app")).to_have_text("News")

    # Past five lines, the collapsed group says how many more it holds.
    for name in ("Cy", "Dee"):
        send(fcm_app, tokens[CHAT], name, "Hi")
    expect(group).to_have_attribute("data-count", "6")
    expect(group.locator(".shade-line")).to_have_count(5)
    expect(group.locator(".shade-line").first).to_have_text("Dee: Hi")
    expect(group.locator(".shade-more")).to_have_text("+1 more")

    # The button shows the children and hides the lines; a message that arrives meanwhile keeps the group open.
    button = group.locator(".shade-expand")
    expect(button).to_have_attribute("aria-expanded", "false")
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(button).to_have_attribute("aria-label", "Collapse")
    children = group.locator(".shade-children .shade-card")
    expect(children).to_have_count(6)
    for index in range(6):
        expect(children.nth(index)).to_be_visible()
    expect(group.locator(".shade-lines")).to_be_hidden()
    expect(group.locator(".shade-more")).to_be_hidden()
    send(fcm_app, tokens[CHAT], "Eve", "Running late")
    expect(children).to_have_count(7)
    expect(children.first.locator(".shade-title")).to_have_text("Eve")
    expect(children.first).to_be_visible()
    expect(children.first).to_have_class("shade-card heads-up")
    button.click()
    expect(group.locator(".shade-children")).to_be_hidden()
    expect(group.locator(".shade-line").first).to_have_text("Eve: Running late")
    expect(group.locator(".shade-more")).to_have_text("+2 more")
    # Every change came whole by the stream, never by a fetch of the shade or a load of the page (issue 57).
    assert len(documents) == loaded, documents
    assert not [url for url in documents if "/shade" in url], documents
    page.context.close()


def test_the_lock_screen_hides_private_contents_and_secret_notifications(plain_server, browser, fcm_app):
    device, tokens = android_phone(plain_server)
    for index in range(4):
        send(fcm_app, tokens[CHAT], f"Teja {index}", "The code is 4127")
    send(fcm_app, tokens[NEWS], "Score", "Lyon 2–1 Porto", visibility="public")
    send(fcm_app, tokens[NEWS], "Breaking", "A private story")
    send(fcm_app, tokens[NEWS], "Bank", "Balance 12 €", visibility="secret")
    page, _ = open_page(browser, plain_server, device, "?locked=true")
    expect(page.locator("#lock")).to_have_attribute("aria-pressed", "true")
    shade = page.locator("#shade")
    expect(shade.locator(".shade.shade-locked")).to_have_count(1)
    expect(shade.locator(".shade-lock-clock")).to_be_visible()
    # Chat's group: its app, and every line hidden.
    group = shade.locator(".shade-group")
    expect(group.locator("> .shade-head .shade-app")).to_have_text("Chat")
    expect(group.locator(".shade-line")).to_have_text(["Contents hidden"] * 4)
    # News: the private one as "News · Contents hidden", the public one whole, the secret one not at all.
    cards = shade.locator(".shade-entries > .shade-entry > .shade-card")
    expect(cards).to_have_count(2)
    redacted = shade.locator(".shade-entries > .shade-entry > .shade-card.redacted")
    expect(redacted).to_have_count(1)
    expect(redacted.locator(".shade-app")).to_have_text("News")
    expect(redacted.locator(".shade-hidden")).to_have_text("Contents hidden")
    expect(redacted.locator(".shade-title, .shade-body")).to_have_count(0)
    expect(shade.locator(".shade-title")).to_have_text(["Score"])
    for secret in ("4127", "Teja", "Breaking", "private story", "Bank", "Balance"):
        expect(shade).not_to_contain_text(secret)
    expect(shade.locator(".heads-up")).to_have_count(0)
    # Unlocked (the page's toggle), everything shows.
    page.locator("#lock").click()
    expect(shade.locator(".shade-locked")).to_have_count(0)
    expect(shade.locator(".shade-entries > .shade-entry > .shade-card")).to_have_count(3)
    expect(shade).to_contain_text("Bank")
    expect(shade.locator(".redacted")).to_have_count(0)
    page.context.close()


def test_the_shade_alone_is_the_pages_and_refused_without_the_secret(plain_server):
    device, _ = android_phone(plain_server)
    url = f"{plain_server.url}/devices/{device['token']}/shade"
    shade = httpx.get(url, params={"locked": "true"}, headers={"authorization": f"Bearer {device['secret']}"})
    assert shade.status_code == 200 and shade.headers["content-type"].startswith("text/html")
    assert shade.text.startswith('<div class="shade shade-locked"') and "script-src 'self'" in shade.headers["content-security-policy"]
    assert httpx.get(url).status_code == 401
    assert httpx.get(url, headers={"authorization": "Bearer 00"}).status_code == 401
    iphone = httpx.post(f"{plain_server.url}/v1/devices", json={"name": "iPhone"}).json()
    answer = httpx.get(f"{plain_server.url}/devices/{iphone['token']}/shade", headers={"authorization": f"Bearer {iphone['secret']}"})
    assert answer.status_code == 404


def iphone_with_chat(server):
    """An iPhone with the example chat app, and that app's registration token (every app has one, for FCM)."""
    device = register_device(server)
    return device, installed_app(server, device)["fcmToken"]


def test_an_iphone_and_an_android_phone_side_by_side_show_one_message_live(plain_server, browser, fcm_app):
    """The issue's pair: /devices/<iPhone>?beside=<Android> shows the iPhone's stacks and the Android phone's shade on one
    page, each following its own stream; the language and the lock are the page's, for both phones."""
    android, tokens = android_phone(plain_server)
    iphone, iphone_token = iphone_with_chat(plain_server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    documents = []
    page.on("request", lambda request: documents.append(request.url) if request.resource_type in FOLLOWED else None)
    # Signed in to the Android phone by its link, then to the iPhone by the pair's: its form goes back to the pair.
    page.goto(f"{plain_server.url}/devices/{android['token']}/session#secret={android['secret']}")
    expect(page.locator("#shade")).to_be_attached()
    pair = f"{plain_server.url}/devices/{iphone['token']}?beside={android['token']}"
    page.goto(f"{pair}#secret={iphone['secret']}")
    expect(page).to_have_url(pair)
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#beside-connection")).to_have_text("live")
    expect(page.locator("#beside .device-label")).to_have_text("Pixel")
    loaded = len(documents)

    # One message, its android and apns blocks, to both phones at once: each shows it as it would.
    batch = messaging.send_each_for_multicast(messaging.MulticastMessage(
        tokens=[tokens[CHAT], iphone_token], notification=messaging.Notification(title="Teja", body="Lunch at one?"),
        android=messaging.AndroidConfig(notification=messaging.AndroidNotification(channel_id="chats", tag="lunch")),
        apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(thread_id="teja")))), app=fcm_app)
    assert batch.success_count == 2, [response.exception for response in batch.responses]
    stack = page.locator("#stacks .stack")
    expect(stack).to_have_count(1)
    expect(stack.locator(".card.leading .title")).to_have_text("Teja")
    expect(stack.locator(".card.leading .body")).to_have_text("Lunch at one?")
    shade = page.locator("#beside-shade")
    card = shade.locator(".shade-entries > .shade-entry > .shade-card")
    expect(card).to_have_count(1)
    expect(card.locator(".shade-title")).to_have_text("Teja")
    expect(card).to_have_class("shade-card heads-up")
    # The tag replaces the Android phone's card; the iPhone stacks the second beside the first.
    messaging.send_each_for_multicast(messaging.MulticastMessage(
        tokens=[tokens[CHAT], iphone_token], notification=messaging.Notification(title="Teja", body="Make it half past"),
        android=messaging.AndroidConfig(notification=messaging.AndroidNotification(channel_id="chats", tag="lunch")),
        apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(thread_id="teja")))), app=fcm_app)
    expect(card.locator(".shade-body")).to_have_text("Make it half past")
    expect(card).to_have_count(1)
    expect(stack.locator(".card")).to_have_count(2)
    assert len(documents) == loaded, documents

    # Locked, both phones hide what they hide: the iPhone's previews, the Android phone's private card (its default
    # visibility is private: Contents hidden).
    page.locator("#lock").click()
    expect(shade.locator(".shade.shade-locked")).to_have_count(1)
    expect(shade.locator(".shade-hidden")).to_have_text("Contents hidden")
    expect(shade).not_to_contain_text("half past")
    page.locator("#lock").click()
    expect(shade.locator(".shade-locked")).to_have_count(0)

    # Another language: the page loads again with the pair, and both phones speak it.
    page.select_option("#language", "de")
    expect(page).to_have_url(f"{pair}&languages=de")
    expect(page.locator("#beside-connection")).to_have_text("verbunden")
    expect(page.locator("#connection")).to_have_text("verbunden")
    page.locator("#lock").click()
    expect(shade.locator(".shade-hidden")).to_have_text("Inhalte ausgeblendet")

    # Both phones are drawn as phones, side by side under their names, and the controls follow the title (issue 55).
    heading, controls = page.locator(".toolbar h1").bounding_box(), page.locator(".toolbar .controls").bounding_box()
    assert 0 <= controls["x"] - (heading["x"] + heading["width"]) < 80, (heading, controls)
    iphone_frame, pixel_frame = page.locator(".pair-iphone .phone").bounding_box(), page.locator("#beside .phone").bounding_box()
    assert abs(iphone_frame["width"] - pixel_frame["width"]) < 2 and abs(iphone_frame["y"] - pixel_frame["y"]) < 2
    assert iphone_frame["x"] + iphone_frame["width"] < pixel_frame["x"]
    expect(page.locator(".pair-iphone .device-label")).to_have_text(page.locator(".toolbar .device-label").inner_text())
    # Clear All clears every phone on the page: the iPhone's stacks and the Pixel's shade.
    page.locator("#clear-all").click()
    expect(stack).to_have_count(0)
    expect(shade.locator(".shade-entry")).to_have_count(0)
    assert httpx.get(f"{plain_server.url}/v1/devices/{android['token']}/center",
                     headers={"authorization": f"Bearer {android['secret']}"}).json()["entries"] == []
    context.close()
