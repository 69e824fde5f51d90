"""Screenshots for the README: the demo center on a phone and a desktop, unlocked and locked, and the home
page on a desktop (signed in with the admin token, so that it lists the server's devices), and the provider
request inspector after a few pushes, and the demo center on a desktop with a few pushes that showed nothing in
its background activity, and the demo center locked on a phone with two Live Activities above its stacks, and a
device with a scheduled summary and a Focus, unlocked and in the Lock Screen's three layouts, and an Android phone's
shade with an app's messages grouped, and its lock screen, and an iPhone's page with that phone beside it.

    python3 Tools/screenshots.py [--huddle .build/debug/huddle] [--out docs] [--only android]

Starts `huddle serve --demo` on an in-memory store, opens the demo device's page in Debian's chromium
(driven by playwright, no browser download) and writes docs/center-{phone,desktop}-{unlocked,locked}.png
docs/home-desktop.png, docs/inspector-desktop.png, docs/center-events-desktop.png and
docs/lock-screen-activities.png, docs/summary-focus-phone.png, docs/lock-screen-{count,stack,list}.png and
docs/android-shade{,-locked}.png and docs/iphone-beside-android.png (`--only android` makes the last three alone).
"""
import argparse
import json
import pathlib
import re
import secrets
import socket
import subprocess
import urllib.error
import urllib.request
import time

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_demo(huddle, port, admin_token):
    """Starts the server and returns it with the demo page's address (from its log)."""
    process = subprocess.Popen([huddle, "serve", "--port", str(port), "--database", "memory", "--demo", "--development", "--admin-token", admin_token],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 30
    for line in process.stdout:
        match = re.search(r"demo device: open (\S+)", line)
        if match:
            return process, match.group(1)
        if time.time() > deadline:
            break
    process.kill()
    raise SystemExit("huddle serve --demo printed no demo address")


def push_examples(address):
    """Pushes as a provider would, to the demo server (it runs with --development: no provider token)."""
    base, token = re.match(r"(.*)/devices/([0-9a-f]{64})", address).groups()
    def push(device, body, **headers):
        request = urllib.request.Request(f"{base}/3/device/{device}", data=body.encode(), method="POST",
                                         headers={"apns-topic": "com.apple.MobileSMS", **headers})
        try:
            urllib.request.urlopen(request)
        except urllib.error.HTTPError:
            pass
    push(token, json.dumps({"aps": {"alert": {"title": "Teja", "body": "Lunch at noon?"}, "thread-id": "gr-51413"}}))
    push(token, json.dumps({"aps": {"alert": {"title": "Michele", "body": "Hall 2"}, "thread-id": "gr-michele"}}), **{"apns-collapse-id": "hall"})
    push("0" * 64, json.dumps({"aps": {"alert": "hello"}}))
    push(token, "{not json")


def push_events(address):
    """Pushes that show nothing (a background refresh, a VoIP call, a widget reload) to the demo device's Messages."""
    base, token = re.match(r"(.*)/devices/([0-9a-f]{64})", address).groups()
    topic = "com.apple.MobileSMS"
    for push_type, suffix, priority, payload in [
        ("background", "", 5, {"aps": {"content-available": 1}, "sync": "inbox"}),
        ("voip", ".voip", 10, {"aps": {}, "caller": "Teja", "handle": "+1 555 0100"}),
        ("widgets", ".push-type.widgets", 10, {"aps": {"content-changed": True}}),
    ]:
        request = urllib.request.Request(f"{base}/3/device/{token}", data=json.dumps(payload).encode(), method="POST",
                                         headers={"apns-topic": topic + suffix, "apns-push-type": push_type, "apns-priority": str(priority)})
        urllib.request.urlopen(request)


# Two apps with an activity type each, drawn with a template; content-state dates are seconds since 2001, as
# ActivityKit decodes them.
ACTIVITY_APPS = [
    ("com.example.pizza", "Pizza Place", {"name": "DeliveryAttributes", "attributes": {"order": "string"},
                                          "contentState": {"status": "string", "driver": "string", "eta": "date"},
                                          "template": "Order {{attributes.order}} · {{contentState.status}}\n"
                                                      "{{contentState.driver}} arrives {{contentState.eta|relative}} ({{contentState.eta|time}})"}),
    ("com.example.match", "Match Day", {"name": "ScoreAttributes", "attributes": {"home": "string", "away": "string"},
                                        "contentState": {"homeScore": "integer", "awayScore": "integer", "minute": "integer"},
                                        "template": "{{attributes.home}} {{contentState.homeScore}} – {{contentState.awayScore}} {{attributes.away}}\n"
                                                    "{{contentState.minute}}′ · second half"}),
]


def api(base):
    """A caller of the server's JSON API at `base`: call(method, path, body, headers) gives the answer's JSON."""
    def call(method, path, body=None, headers=None):
        request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode() if body is not None else None, method=method,
                                         headers={"content-type": "application/json", **(headers or {})})
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return json.loads(text) if text else None
    return call


def push_activities(address):
    """Installs two apps with Live Activity types on the demo device and starts one activity of each by its
    push-to-start token; the delivery's start carries an alert, which the page shows as a banner."""
    base, token, secret = re.match(r"(.*)/devices/([0-9a-f]{64}).*#secret=([0-9a-f]+)", address).groups()

    call = api(base)
    auth = {"authorization": f"Bearer {secret}"}
    for topic, name, declaration in ACTIVITY_APPS:
        call("PUT", f"/v1/devices/{token}/apps/{topic}", {"name": name, "liveActivities": {"types": [declaration]}}, auth)
    tokens = {entry["app"]: entry["token"] for entry in call("GET", f"/v1/devices/{token}/activities", headers=auth)["pushToStartTokens"]}
    now = int(time.time())
    since_2001 = time.time() - 978_307_200
    starts = [
        ("com.example.match", {"event": "start", "timestamp": now, "attributes-type": "ScoreAttributes",
                               "attributes": {"home": "Lyon", "away": "Porto"},
                               "content-state": {"homeScore": 2, "awayScore": 1, "minute": 67}, "relevance-score": 20}),
        ("com.example.pizza", {"event": "start", "timestamp": now, "attributes-type": "DeliveryAttributes", "attributes": {"order": "#4127"},
                               "content-state": {"status": "On its way", "driver": "Ana", "eta": since_2001 + 12 * 60},
                               "relevance-score": 80, "alert": {"title": "Your pizza is on its way", "body": "Ana picked up order #4127"}}),
    ]
    for topic, aps in starts:
        call("POST", f"/3/device/{tokens[topic]}", {"aps": aps},
             {"apns-topic": topic + ".push-type.liveactivity", "apns-push-type": "liveactivity", "apns-priority": "10"})


def summary_device(base):
    """A device whose Podcasts app is in a scheduled summary and whose Work Focus is on: three episodes held, then
    delivered as the summary; a Mail message silenced; a Time Sensitive reminder that broke through."""
    call = api(base)
    device = call("POST", "/v1/devices", {"name": "Summary and Focus"})
    token, auth = device["token"], {"authorization": f"Bearer {device['secret']}"}
    call("PUT", f"/v1/devices/{token}/apps/com.example.podcasts", {"name": "Podcasts", "settings": {"scheduledSummary": True}}, auth)
    call("PUT", f"/v1/devices/{token}/apps/com.example.mail", {"name": "Mail"}, auth)
    call("PUT", f"/v1/devices/{token}/apps/com.example.calendar", {"name": "Calendar", "capabilities": ["timeSensitive"]}, auth)
    call("PATCH", f"/v1/devices/{token}/settings",
         {"timeZone": "Europe/Paris", "summary": {"enabled": True, "times": ["08:00", "18:00"]}, "focus": {"name": "Work", "on": True}}, auth)
    pushes = [
        ("com.example.podcasts", "e1", {"alert": {"title": "Song by Song", "body": "New episode: Teja on the bridge"}, "relevance-score": 0.9}),
        ("com.example.podcasts", "e2", {"alert": {"title": "Song by Song", "body": "New episode: the chorus"}, "relevance-score": 0.4}),
        ("com.example.podcasts", "e3", {"alert": {"title": "The Daily Mix", "body": "Your mix is ready"}, "relevance-score": 0.2}),
        ("com.example.mail", "m1", {"alert": {"title": "Michele", "body": "Slides for Thursday"}}),
        ("com.example.calendar", "c1", {"alert": {"title": "Standup in 5 minutes", "body": "Room 2"}, "interruption-level": "time-sensitive"}),
    ]
    for topic, identifier, aps in pushes:
        call("POST", f"/3/device/{token}", {"aps": aps}, {"apns-topic": topic, "apns-collapse-id": identifier})
    call("POST", f"/v1/devices/{token}/summary", headers=auth)
    return f"{base}/devices/{token}#secret={device['secret']}", token, auth, call


def summary_screenshots(browser, base, out):
    """The summary card and the Focus on a phone, then the Lock Screen in its three layouts."""
    address, token, auth, call = summary_device(base)
    context = browser.new_context(viewport=SIZES["phone"], device_scale_factor=2, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(address)
    page.wait_for_selector(".summary-card")
    page.wait_for_selector("#connection:text-is('live')")
    page.screenshot(path=str(out / "summary-focus-phone.png"))
    for layout in ["count", "stack", "list"]:
        call("PATCH", f"/v1/devices/{token}/settings", {"lockScreen": layout, "focus": {"on": False}}, auth)
        page.goto(address.replace("#", "?locked=true#"))
        page.wait_for_selector(f"body[data-layout='{layout}']")
        page.wait_for_selector("#connection:text-is('live')")
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"lock-screen-{layout}.png"))
    context.close()


def android_device(base):
    """An Android phone with three apps and their channels, and messages sent to it as FCM's HTTP v1 API takes them
    (the demo server runs with --development: no OAuth token): Chat's six group, its newest peeking; a public score, a
    private reminder, and a secret bank message that the lock screen leaves out."""
    call = api(base)
    device = call("POST", "/v1/devices", {"name": "Pixel", "platform": "android", "androidVersion": 15})
    token, auth = device["token"], {"authorization": f"Bearer {device['secret']}"}
    apps = [
        ("com.example.android.chat", "Chat", [{"id": "chats", "name": "Chats", "importance": "high"}]),
        ("com.example.android.match", "Match Day", [{"id": "scores", "name": "Scores", "importance": "default"}]),
        ("com.example.android.calendar", "Calendar", [{"id": "events", "name": "Events", "importance": "default"}]),
        ("com.example.android.bank", "Bank", [{"id": "payments", "name": "Payments", "importance": "high"}]),
    ]
    tokens = {name: call("PUT", f"/v1/devices/{token}/apps/{package}", {"name": name, "channels": channels}, auth)["fcmToken"]
              for package, name, channels in apps}

    def send(app, channel, title, body, visibility="PRIVATE"):
        call("POST", "/v1/projects/huddle-demo/messages:send", {"message": {"token": tokens[app], "android": {"notification": {
            "title": title, "body": body, "channel_id": channel, "visibility": visibility}}}})

    send("Bank", "payments", "Card payment", "€12.40 at Café Lumière", "SECRET")
    send("Calendar", "events", "Standup in 10 minutes", "Room 2 · with Teja and Ana")
    send("Match Day", "scores", "Lyon 2 – 1 Porto", "67′ · Cherki scores from the edge of the box", "PUBLIC")
    for title, body in [("Teja", "Lunch at one?"), ("Michele", "Hall 2, row F"), ("Ana", "I'll bring the slides"),
                        ("Teja", "Table for four booked"), ("Ana", "Running 5 min late"), ("Michele", "See you there 👋")]:
        send("Chat", "chats", title, body)
    return f"{base}/devices/{token}", device["secret"], tokens["Chat"]


def iphone_beside(base, android_chat):
    """An iPhone with the example chat app, sent the same FCM messages as the Android phone's Chat (one message each, with
    an android and an apns block, to both registration tokens); returns its page with the Android phone beside it."""
    call = api(base)
    device = call("POST", "/v1/devices", {"name": "iPhone"})
    token, auth = device["token"], {"authorization": f"Bearer {device['secret']}"}
    chat = call("PUT", f"/v1/devices/{token}/apps/com.example.chat", {"name": "Chat", "categories": [
        {"identifier": "message", "categorySummaryFormat": "%u more messages from %@"}]}, auth)["fcmToken"]
    for title, body in [("Ana", "The slides are in the team folder"), ("Teja", "Moved lunch to half past one")]:
        for recipient in (android_chat, chat):
            call("POST", "/v1/projects/huddle-demo/messages:send", {"message": {
                "token": recipient, "notification": {"title": title, "body": body},
                "android": {"notification": {"channel_id": "chats"}},
                "apns": {"payload": {"aps": {"thread-id": "team", "category": "message"}}}}})
    return f"{base}/devices/{token}", device["secret"]


def android_screenshots(browser, base, out):
    """An Android phone's page: its shade, Chat's messages grouped and collapsed, then its lock screen."""
    address, secret, android_chat = android_device(base)
    context = browser.new_context(viewport={"width": 430, "height": 900}, device_scale_factor=2, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{address}#secret={secret}")
    page.wait_for_selector(".shade-group")
    page.wait_for_selector("#connection:text-is('live')")
    page.screenshot(path=str(out / "android-shade.png"))
    page.goto(f"{address}?locked=true")
    page.wait_for_selector(".shade-locked")
    page.wait_for_selector("#connection:text-is('live')")
    page.wait_for_timeout(300)
    page.screenshot(path=str(out / "android-shade-locked.png"))
    context.close()

    # The pair: signed in to the Android phone first, then to the iPhone by the pair's own address.
    iphone, iphone_secret = iphone_beside(base, android_chat)
    context = browser.new_context(viewport=SIZES["desktop"], locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{address}#secret={secret}")
    page.wait_for_selector(".shade-group")
    page.goto(f"{iphone}?beside={address.rsplit('/', 1)[1]}#secret={iphone_secret}")
    page.wait_for_selector("#beside-connection:text-is('live')")
    page.wait_for_selector("#connection:text-is('live')")
    page.wait_for_timeout(300)
    page.screenshot(path=str(out / "iphone-beside-android.png"))
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--huddle", default=str(ROOT / ".build" / "debug" / "huddle"))
    parser.add_argument("--out", default=str(ROOT / "docs"))
    parser.add_argument("--only", choices=["android"], help="make only these screenshots")
    arguments = parser.parse_args()
    out = pathlib.Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    admin_token = secrets.token_hex(16)
    process, address = start_demo(arguments.huddle, free_port(), admin_token)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            if arguments.only == "android":
                android_screenshots(browser, address.split("/devices/")[0], out)
                browser.close()
                return
            for name, size in SIZES.items():
                context = browser.new_context(viewport=size, device_scale_factor=2 if name == "phone" else 1,
                                              locale="en-US", reduced_motion="reduce")
                page = context.new_page()
                page.goto(address)
                page.wait_for_selector(".stack")
                page.wait_for_function("document.getElementById('connection').textContent === 'live'")
                page.screenshot(path=str(out / f"center-{name}-unlocked.png"), full_page=True)
                page.click("#lock")
                page.wait_for_selector(".stack.locked")
                page.wait_for_timeout(300)
                page.screenshot(path=str(out / f"center-{name}-locked.png"), full_page=True)
                context.close()
            # The desktop center again, after three pushes that showed nothing: its background activity, one
            # payload open.
            context = browser.new_context(viewport=SIZES["desktop"], locale="en-US", reduced_motion="reduce")
            page = context.new_page()
            page.goto(address)
            page.wait_for_function("document.getElementById('connection').textContent === 'live'")
            push_events(address)
            page.wait_for_selector("#activity .event:nth-child(3)")
            page.locator("#activity .event summary").nth(1).click()
            page.screenshot(path=str(out / "center-events-desktop.png"), full_page=True)
            context.close()
            # The lock screen on a phone: the demo center locked, two Live Activities above its stacks, and the
            # delivery's alert passing as a banner.
            context = browser.new_context(viewport=SIZES["phone"], device_scale_factor=2, locale="en-US", reduced_motion="reduce")
            page = context.new_page()
            page.goto(address)
            # A selector, not wait_for_function: a wait that polls evaluates a string, which the page's policy refuses.
            page.wait_for_selector("#connection:text-is('live')")
            page.click("#lock")
            page.wait_for_selector(".stack.locked")
            page.wait_for_selector("#connection:text-is('live')")
            push_activities(address)
            page.wait_for_selector("#live-activities .activity-card:nth-child(2)")
            page.wait_for_selector("#activity-banner:not([hidden])")
            page.wait_for_timeout(300)
            page.screenshot(path=str(out / "lock-screen-activities.png"))
            context.close()
            context = browser.new_context(viewport=SIZES["desktop"], locale="en-US", reduced_motion="reduce")
            page = context.new_page()
            page.goto(address.split("/devices/")[0] + "/")
            if page.locator("#admin-token").count():
                page.fill("#admin-token", admin_token)
                page.click("#show-devices")
                page.wait_for_selector("#sign-out")
                page.locator(".listed-device details").first.evaluate("details => details.open = true")
            page.screenshot(path=str(out / "home-desktop.png"), full_page=True)
            # The request inspector, signed in by the home page's admin cookie, after a few pushes: accepted ones
            # to the demo device, one to a token that is not a device, one whose payload is not JSON.
            page.goto(address.split("/devices/")[0] + "/requests")
            page.wait_for_function("document.getElementById('status').textContent === 'live'")
            push_examples(address)
            page.wait_for_selector("#requests tbody tr:nth-child(4)")
            page.locator("#requests tbody tr.refused").first.click()
            page.wait_for_selector("#detail:not([hidden])")
            page.screenshot(path=str(out / "inspector-desktop.png"), full_page=True)
            context.close()
            summary_screenshots(browser, address.split("/devices/")[0], out)
            android_screenshots(browser, address.split("/devices/")[0], out)
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=20)


if __name__ == "__main__":
    main()
