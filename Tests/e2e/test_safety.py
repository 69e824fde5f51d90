"""Safe to leave running (issue 26), against a real `huddle serve`: no crash from an unverified provider token,
HTML that cannot be broken out of (on the HTML and in chromium), headers and origin checks that keep other
sites from writing, answers only to the server's own host names, HTTP/2 connections that time out, bounded
display strings, and credentials that are credentials."""
import base64
import hashlib
import hmac
import html
import http.server
import json
import os
import re
import socket
import subprocess
import threading
import time
import uuid
from html.parser import HTMLParser

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import httpx
from playwright.sync_api import expect

from conftest import ADMIN_TOKEN, HUDDLE, TOPIC, Server, free_port, register_device
from sse import events

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
ADMIN_COOKIE = "huddle-admin"
CSRF_COOKIE = "huddle-csrf"
TIMEOUT = 10
CATEGORIES = [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]
DEMO_TOKEN = hashlib.sha256(b"huddle demo device").hexdigest()

# U+0600 joins the "<" after it into one Character, U+0301 the ">" or '"' before it: an escaper that walks
# Characters lets them through.
TAG_PAYLOAD = "\u0600<img src=x id=pwned onerror=alert(1)>\u0301"
ATTRIBUTE_PAYLOAD = "\"\u0301 onmouseover=alert(1) x=\u0301"
PAYLOAD = TAG_PAYLOAD + ATTRIBUTE_PAYLOAD


# MARK: Helpers

def start(tmp_path, *extra):
    """A dedicated `huddle serve` in its own directory (its own database); the caller stops it."""
    directory = tmp_path / f"server-{uuid.uuid4().hex[:8]}"
    directory.mkdir()
    return Server(str(directory), tls=False, extra=list(extra))


def log_tail(server, lines=30):
    try:
        text = server.log_path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return f"--- last lines of {server.log_path} ---\n" + "\n".join(text.splitlines()[-lines:])


def bearer(device):
    return {"authorization": f"Bearer {device['secret']}"}


def set_cookies(response):
    """The cookies a response sets: name → (value, the whole Set-Cookie line)."""
    cookies = {}
    for line in response.headers.get_list("set-cookie"):
        name, _, value = line.split(";")[0].strip().partition("=")
        cookies[name] = (value, line)
    return cookies


def cookie_header(cookies):
    return {"cookie": "; ".join(f"{name}={value}" for name, value in cookies.items())} if cookies else {}


def attribute(tag, name):
    match = re.search(rf'\b{name}\s*=\s*"([^"]*)"', tag)
    return html.unescape(match.group(1)) if match else None


def csrf_of(response):
    """(cookie, field): the huddle-csrf cookie a page set and its forms' csrf field; None where missing."""
    cookie = set_cookies(response).get(CSRF_COOKIE, (None,))[0]
    fields = [attribute(tag, "value") for tag in re.findall(r"<input\b[^>]*>", response.text) if attribute(tag, "name") == "csrf"]
    return cookie, (fields[0] if fields else None)


def fresh_csrf(server, path="/"):
    return csrf_of(httpx.get(f"{server.url}{path}", timeout=TIMEOUT))


def post_form(server, path, fields, csrf=None, cookies=None, headers=None):
    """A form post as a browser makes it (application/x-www-form-urlencoded), with the csrf pair given."""
    cookies, fields = dict(cookies or {}), dict(fields)
    if csrf is not None:
        cookie, field = csrf
        if cookie is not None:
            cookies[CSRF_COOKIE] = cookie
        if field is not None:
            fields["csrf"] = field
    return httpx.post(f"{server.url}{path}", data=fields, headers={**cookie_header(cookies), **(headers or {})}, timeout=TIMEOUT)


def sign_in(server):
    """Signs in through the home page's form; the huddle-admin cookie's value."""
    response = post_form(server, "/admin/session", {"adminToken": ADMIN_TOKEN}, csrf=fresh_csrf(server))
    assert response.status_code == 303, f"{response.status_code} {response.text[:300]}\n{log_tail(server)}"
    return set_cookies(response)[ADMIN_COOKIE][0]


def listed_devices(server, admin_cookie):
    """How many devices the signed-in home page lists (there is no admin device list in the API)."""
    page = httpx.get(f"{server.url}/", headers=cookie_header({ADMIN_COOKIE: admin_cookie}), timeout=TIMEOUT)
    assert page.status_code == 200 and 'id="sign-out"' in page.text, f"not signed in: {page.status_code}"
    return page.text.count('class="listed-device"')


def device_cookie(server, device):
    """The device's web-session cookie, as its page gets it (JSON POST /devices/<token>/session)."""
    response = httpx.post(f"{server.url}/devices/{device['token']}/session", json={"secret": device["secret"]}, timeout=TIMEOUT)
    assert response.status_code == 204, response.text
    name = f"huddle-{device['token']}"
    return {name: set_cookies(response)[name][0]}


def push(server, device, aps, collapse_id=None, headers=None, http2=False):
    """An unsigned push (a --development server), HTTP/1.1 or h2c."""
    sent = {"apns-topic": TOPIC, **(headers or {})}
    if collapse_id is not None:
        sent["apns-collapse-id"] = collapse_id.encode()
    with httpx.Client(http1=not http2, http2=http2, timeout=TIMEOUT) as client:
        return client.post(f"{server.url}/3/device/{device['token']}", content=json.dumps({"aps": aps}), headers=sent)


def error_of(response):
    return response.json()["error"]


class Markup(HTMLParser):
    """Every start tag of a page and its attributes, as a browser's tokenizer reads them."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def assert_no_markup_from_payload(text, where):
    """The payload reached the page only as text: no raw tag or broken-out attribute, and its escaped form is there."""
    assert not re.search(r"<img", text, re.I), f"{where}: a raw <img went out:\n{excerpt(text, '<img')}"
    assert '"\u0301' not in text, f"{where}: a raw quote + U+0301 went out:\n{excerpt(text, chr(0x301))}"
    assert re.search(r"(&lt;|&#0*60;|&#x0*3c;)img", text, re.I), f"{where}: the payload's escaped <img is not on the page"
    assert re.search(r"(&quot;|&#0*34;|&#x0*22;)\u0301", text, re.I), f"{where}: the payload's escaped quote is not on the page"
    for tag, attributes in Markup(text).tags:
        assert tag != "img", f"{where}: an <img> element"
        assert attributes.get("id") != "pwned", f"{where}: an element with id=pwned"
        handlers = [name for name in attributes if name.startswith("on")]
        assert not handlers, f"{where}: <{tag}> has event handler attributes {handlers}"


def excerpt(text, needle, width=200):
    index = text.find(needle)
    return text[max(0, index - width):index + width] if index >= 0 else "(not found)"


# MARK: 1. No crash from an unverified token's iat

def jwt_with_raw_iat(iat_json):
    """A provider token (not signed by any key) whose claims' iat is `iat_json` as written."""
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    header = b64(b'{"alg":"ES256","kid":"ABC123DEFG"}')
    claims = b64(('{"iss":"DEF123GHIJ","iat":' + iat_json + "}").encode())
    return f"{header}.{claims}.{b64(os.urandom(64))}"


IAT_VARIANTS = ['"nan"', '"inf"', '"-inf"', "1e300", "-1e300", '"1e300"']


def test_tokens_whose_iat_is_not_a_time_neither_crash_the_inspector_nor_are_recorded_as_tokens(tmp_path):
    """Issue 26 item 1: iat of NaN, ±infinity or ±1e300 in an unverified token, then every read of the inspector."""
    server = start(tmp_path)
    try:
        sent = {}  # apns-id → (iat, path, protocol)
        for iat in IAT_VARIANTS:
            for path in ["/3/device/00", f"/3/device/{os.urandom(32).hex()}"]:
                for http2 in (False, True):
                    apns_id = str(uuid.uuid4())
                    with httpx.Client(http1=not http2, http2=http2, timeout=TIMEOUT) as client:
                        response = client.post(f"{server.url}{path}", content=b'{"aps":{"alert":"x"}}', headers={
                            "authorization": f"bearer {jwt_with_raw_iat(iat)}", "apns-topic": TOPIC, "apns-id": apns_id})
                    assert response.status_code in (400, 403) and "reason" in response.json(), (iat, path, response.text)
                    sent[apns_id] = (iat, path, "h2" if http2 else "http/1.1")
        assert server.process.poll() is None, f"the server died\n{log_tail(server)}"

        listed = httpx.get(f"{server.url}/v1/admin/requests", params={"limit": 1000}, headers=ADMIN, timeout=TIMEOUT)
        assert listed.status_code == 200, f"{listed.status_code}\n{log_tail(server)}"
        records = {record["answer"]["apnsID"]: record for record in listed.json()["requests"] if record["answer"].get("apnsID") in sent}
        assert set(records) == set(sent), f"recorded {len(records)} of {len(sent)}"
        for apns_id, record in records.items():
            assert "providerToken" not in record, (sent[apns_id], record.get("providerToken"))
            one = httpx.get(f"{server.url}/v1/admin/requests/{record['id']}", headers=ADMIN, timeout=TIMEOUT)
            assert one.status_code == 200, f"{sent[apns_id]}: {one.status_code}\n{log_tail(server)}"
            assert "providerToken" not in one.json()
        assert server.process.poll() is None, f"the server died\n{log_tail(server)}"

        # The live stream of an admin who has /requests open, from the start of the history.
        streamed = set()
        with httpx.Client(timeout=5) as client, client.stream(
                "GET", f"{server.url}/v1/admin/requests/stream", params={"after": 0}, headers=ADMIN) as stream:
            assert stream.status_code == 200
            deadline = time.monotonic() + 5
            for event in events(stream):
                if event.name == "request":
                    record = event.json()
                    assert "providerToken" not in record, record
                    streamed.add(record["answer"].get("apnsID"))
                if streamed >= set(sent) or time.monotonic() > deadline:
                    break
        assert streamed >= set(sent), f"the stream sent {len(streamed & set(sent))} of {len(sent)}"
        assert server.process.poll() is None, f"the server died\n{log_tail(server)}"
        assert httpx.get(f"{server.url}/health", timeout=TIMEOUT).status_code == 200
    finally:
        server.stop()


def test_without_a_provider_token_a_push_learns_nothing_about_the_device(tmp_path):
    """Issue 26 item 1 (also seen): authentication is checked first, so known and unknown devices answer alike."""
    server = start(tmp_path)
    try:
        device = register_device(server)
        answers = {}
        for name, token, topic in [("known device, its app", device["token"], TOPIC),
                                   ("known device, another app", device["token"], "com.example.other"),
                                   ("unknown device", os.urandom(32).hex(), TOPIC)]:
            response = httpx.post(f"{server.url}/3/device/{token}", content=b'{"aps":{"alert":"x"}}',
                                  headers={"apns-topic": topic}, timeout=TIMEOUT)
            answers[name] = (response.status_code, response.json().get("reason"))
        assert set(answers.values()) == {(403, "MissingProviderToken")}, answers
    finally:
        server.stop()


# MARK: 2. Escaping by Unicode scalar

def plant_payloads(server):
    """A device whose name, app name, notification titles, bodies, summary arguments, ids (collapse ids and a
    local notification's) and a thread id are the payloads."""
    registered = httpx.post(f"{server.url}/v1/devices", json={"name": PAYLOAD}, timeout=TIMEOUT)
    assert registered.status_code == 201, registered.text
    device = registered.json()
    saved = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}", headers=bearer(device),
                      json={"name": PAYLOAD, "categories": CATEGORIES}, timeout=TIMEOUT)
    assert saved.status_code == 200, saved.text
    pushes = [
        ({"alert": {"title": TAG_PAYLOAD, "body": ATTRIBUTE_PAYLOAD, "summary-arg": PAYLOAD}, "thread-id": "t", "category": "msg"}, TAG_PAYLOAD),
        ({"alert": {"title": ATTRIBUTE_PAYLOAD, "body": TAG_PAYLOAD, "summary-arg": PAYLOAD}, "thread-id": "t", "category": "msg"}, ATTRIBUTE_PAYLOAD),
        ({"alert": {"title": "thread", "body": PAYLOAD}, "thread-id": ATTRIBUTE_PAYLOAD}, "in-a-thread"),
    ]
    for aps, collapse_id in pushes:
        assert len(collapse_id.encode()) <= 64
        response = push(server, device, aps, collapse_id=collapse_id)
        assert response.status_code == 200, f"{collapse_id!r}: {response.status_code} {response.text}"
    local = httpx.post(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}/notifications", headers=bearer(device), timeout=TIMEOUT,
                       json={"id": PAYLOAD, "content": {"title": PAYLOAD, "body": "local", "threadIdentifier": "local"}})
    assert local.status_code == 201, local.text
    return device


def test_payloads_that_join_characters_are_escaped_on_every_page(tmp_path):
    """Issue 26 item 2: device and app names, titles, bodies, summaries and ids are escaped by Unicode scalar (HTML)."""
    server = start(tmp_path, "--development")
    try:
        device = plant_payloads(server)
        center = httpx.get(f"{server.url}/devices/{device['token']}", headers=bearer(device), timeout=TIMEOUT)
        assert center.status_code == 200 and 'class="stack' in center.text, center.status_code
        assert center.text.count('class="card') >= 4
        assert_no_markup_from_payload(center.text, "the center page")

        with_cookie = httpx.get(f"{server.url}/devices/{device['token']}", headers=cookie_header(device_cookie(server, device)), timeout=TIMEOUT)
        assert with_cookie.status_code == 200
        assert_no_markup_from_payload(with_cookie.text, "the center page (cookie)")

        home = httpx.get(f"{server.url}/", headers=cookie_header({ADMIN_COOKIE: sign_in(server)}), timeout=TIMEOUT)
        assert home.status_code == 200 and f'data-token="{device["token"]}"' in home.text
        assert_no_markup_from_payload(home.text, "the admin's home page")
    finally:
        server.stop()


NO_INJECTION = """() => ({
  pwned: document.getElementById("pwned") !== null,
  images: document.querySelectorAll("img").length,
  handlers: [...document.querySelectorAll("*")].flatMap((element) =>
    [...element.attributes].filter((a) => a.name.startsWith("on")).map((a) => element.tagName + "[" + a.name + "]")),
})"""


def assert_not_injected(page, dialogs, where):
    found = page.evaluate(NO_INJECTION)
    assert found == {"pwned": False, "images": 0, "handlers": []}, f"{where}: {found}"
    assert dialogs == [], f"{where}: the payload's script ran: {dialogs}"


def test_payloads_that_join_characters_stay_text_in_chromium(tmp_path, browser):
    """Issue 26 item 2: in chromium, the center page (also a live push) and the admin's home page build no element from a payload."""
    server = start(tmp_path, "--development")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        device = plant_payloads(server)
        dialogs = []
        page = context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(f"{server.url}/devices/{device['token']}#secret={device['secret']}")
        page.wait_for_selector(".stack", timeout=TIMEOUT * 1000)
        expect(page.locator("#connection")).to_have_text("live", timeout=TIMEOUT * 1000)
        expect(page.locator(".device-label")).to_have_text(PAYLOAD)
        expect(page.locator(f'.stack[data-group="{TOPIC}/t"] .card.leading .title')).to_have_text(ATTRIBUTE_PAYLOAD)
        assert_not_injected(page, dialogs, "the center page")

        # Live, through the stream's server-rendered HTML.
        pushed = push(server, device, {"alert": {"title": TAG_PAYLOAD, "body": "live-marker " + ATTRIBUTE_PAYLOAD, "summary-arg": PAYLOAD},
                                       "thread-id": "t", "category": "msg"}, collapse_id="\u0600<img src=x id=pwned onerror=alert(2)>\u0301")
        assert pushed.status_code == 200, pushed.text
        page.wait_for_function("() => document.getElementById('stacks').textContent.includes('live-marker')", timeout=TIMEOUT * 1000)
        assert_not_injected(page, dialogs, "the center page after a live push")

        home = context.new_page()
        home.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        home.goto(f"{server.url}/")
        home.fill("#admin-token", ADMIN_TOKEN)
        home.click("#show-devices")
        listed = home.locator(f'.listed-device[data-token="{device["token"]}"]')
        expect(listed.locator(".device-name")).to_have_text(PAYLOAD, timeout=TIMEOUT * 1000)
        assert_not_injected(home, dialogs, "the admin's home page")
    finally:
        context.close()
        server.stop()


# MARK: 3. Headers, cross-origin writes, CSRF

def directives(policy):
    parsed = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            parsed[words[0].lower()] = [word.lower() for word in words[1:]]
    return parsed


def assert_page_headers(response, where):
    assert "text/html" in response.headers.get("content-type", ""), where
    policy = response.headers.get("content-security-policy")
    assert policy, f"{where}: no Content-Security-Policy"
    csp = directives(policy)
    for name, source in [("default-src", "'self'"), ("script-src", "'self'"), ("frame-ancestors", "'none'"),
                         ("object-src", "'none'"), ("base-uri", "'none'"), ("form-action", "'self'")]:
        assert source in csp.get(name, []), f"{where}: {name} {source} is not in {policy!r}"
    assert "'unsafe-inline'" not in csp["script-src"], f"{where}: {policy!r}"
    assert response.headers.get("x-content-type-options", "").lower() == "nosniff", where
    assert response.headers.get("x-frame-options", "").upper() == "DENY", where
    # No page's address (it names a device token) goes to another site.
    assert response.headers.get("referrer-policy", "").lower() in ("no-referrer", "same-origin"), where
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", response.text, re.I)
    assert not inline, f"{where}: inline scripts {inline}"


def test_pages_send_a_strict_content_security_policy_and_every_answer_nosniff(tmp_path):
    """Issue 26 item 3: CSP without inline script, frame-ancestors 'none', nosniff, DENY and a referrer policy on every page."""
    server = start(tmp_path, "--development")
    try:
        device = register_device(server, categories=CATEGORIES)
        assert push(server, device, {"alert": {"title": "Teja", "body": "Pizza?"}}).status_code == 200
        admin = {ADMIN_COOKIE: sign_in(server)}
        token = device["token"]
        pages = [
            ("/", {}, 200), ("/ signed in", cookie_header(admin), 200), (f"/devices/{token} (unlock form)", {}, 401),
            (f"/devices/{token} (center)", bearer(device), 200), (f"/devices/{token} (center, cookie)", cookie_header(device_cookie(server, device)), 200),
            ("/requests", {}, 200), ("/requests signed in", cookie_header(admin), 200), ("/?languages=ru", {}, 200),
            (f"/devices/{token}/session (sign-in form)", {}, 200),
        ]
        for label, headers, status in pages:
            path = label.split(" ")[0]
            response = httpx.get(f"{server.url}{path}", headers=headers, timeout=TIMEOUT)
            assert response.status_code == status, (label, response.status_code)
            assert_page_headers(response, label)

        others = [
            ("GET", "/health", {}, 200), ("GET", "/openapi.yaml", {}, 200), ("GET", "/metrics", {}, 200),
            ("GET", "/static/app.js", {}, 200), ("GET", "/static/app.css", {}, 200), ("GET", "/static/home.js", {}, 200),
            ("GET", "/static/requests.js", {}, 200), ("GET", "/static/nothing.js", {}, 404),
            ("GET", "/favicon.ico", {}, 200), ("GET", "/favicon.svg", {}, 200),
            ("GET", f"/v1/devices/{token}", bearer(device), 200), ("GET", f"/v1/devices/{token}", {}, 401),
            ("GET", f"/v1/devices/{token}/center", bearer(device), 200), ("GET", "/v1/admin/requests", ADMIN, 200),
            ("POST", "/v1/devices", {}, 201),
        ]
        for method, path, headers, status in others:
            response = httpx.request(method, f"{server.url}{path}", headers=headers, timeout=TIMEOUT,
                                     json={"name": "n"} if method == "POST" else None)
            assert response.status_code == status, (method, path, response.status_code)
            assert response.headers.get("x-content-type-options", "").lower() == "nosniff", (method, path, dict(response.headers))
    finally:
        server.stop()


def test_state_changing_requests_from_other_origins_are_refused(tmp_path):
    """Issue 26 item 3: POST/PUT/PATCH/DELETE with a foreign Origin or Sec-Fetch-Site cross-site/same-site get 403; curl and same-origin work."""
    server = start(tmp_path, "--development")
    try:
        device = register_device(server, categories=CATEGORIES)
        token, own = device["token"], f"http://127.0.0.1:{server.port}"
        other_port = free_port()
        refused_variants = {
            "foreign origin": {"origin": "http://evil.example"},
            "Origin: null": {"origin": "null"},
            "another port": {"origin": f"http://127.0.0.1:{other_port}"},
            "localhost for 127.0.0.1": {"origin": f"http://localhost:{server.port}"},
            "Sec-Fetch-Site: cross-site": {"sec-fetch-site": "cross-site"},
            "Sec-Fetch-Site: same-site": {"sec-fetch-site": "same-site"},
            "own origin but cross-site": {"origin": own, "sec-fetch-site": "cross-site"},
        }
        allowed_variants = {
            "no Origin (curl)": {},
            "own origin": {"origin": own},
            "own origin, same-origin": {"origin": own, "sec-fetch-site": "same-origin"},
            "Sec-Fetch-Site: none": {"sec-fetch-site": "none"},
            # The scheme is not compared: behind a proxy that ends TLS the page is https and the server plain,
            # and no page of another site can be served from this host and port.
            "https of the same host and port": {"origin": f"https://127.0.0.1:{server.port}"},
        }

        def requests():
            """(label, send(headers), the status when allowed); form posts carry a fresh, valid csrf pair."""
            remove = {"app": TOPIC, "ids": ["nothing"]}
            return [
                ("POST /v1/devices", lambda h: httpx.post(f"{server.url}/v1/devices", json={"name": "x"}, headers=h, timeout=TIMEOUT), 201),
                ("POST /devices", lambda h: post_form(server, "/devices", {"name": "x"}, csrf=fresh_csrf(server), headers=h), 303),
                ("POST /admin/session/end", lambda h: post_form(server, "/admin/session/end", {}, csrf=fresh_csrf(server), headers=h), 303),
                (f"POST /devices/{token[:8]}…/session", lambda h: httpx.post(
                    f"{server.url}/devices/{token}/session", json={"secret": device["secret"]}, headers=h, timeout=TIMEOUT), 204),
                ("POST …/notifications/remove", lambda h: httpx.post(
                    f"{server.url}/v1/devices/{token}/notifications/remove", json=remove, headers={**bearer(device), **h}, timeout=TIMEOUT), 200),
                ("DELETE …/notifications", lambda h: httpx.delete(
                    f"{server.url}/v1/devices/{token}/notifications", headers={**bearer(device), **h}, timeout=TIMEOUT), 200),
                ("PATCH …/settings", lambda h: httpx.patch(
                    f"{server.url}/v1/devices/{token}/apps/{TOPIC}/settings", json={"grouping": "automatic"}, headers={**bearer(device), **h},
                    timeout=TIMEOUT), 200),
                ("PUT …/apps", lambda h: httpx.put(
                    f"{server.url}/v1/devices/{token}/apps/{TOPIC}", json={"name": "Chat"}, headers={**bearer(device), **h}, timeout=TIMEOUT), 200),
            ]

        admin = sign_in(server)
        before = listed_devices(server, admin)
        problems = []
        for label, send, _ in requests():
            for variant, headers in refused_variants.items():
                response = send(headers)
                if response.status_code != 403:
                    problems.append(f"{label} with {variant}: {response.status_code}, not 403")
                    continue
                message = error_of(response)
                if not re.search(r"origin|site", message, re.I):
                    problems.append(f"{label} with {variant}: 403 {message!r} does not name the origin")
        if listed_devices(server, admin) != before:
            problems.append(f"refused requests created {listed_devices(server, admin) - before} devices")
        for label, send, status in requests():
            for variant, headers in allowed_variants.items():
                response = send(headers)
                if response.status_code != status:
                    problems.append(f"{label} with {variant}: {response.status_code}, not {status} ({response.text[:120]!r})")
        assert not problems, "\n".join(problems)

        # The provider endpoint is not a browser's: a foreign Origin changes nothing there.
        for headers in [{"origin": "http://evil.example"}, {"origin": "null", "sec-fetch-site": "cross-site"}]:
            for http2 in (False, True):
                pushed = push(server, device, {"alert": "from anywhere"}, headers=headers, http2=http2)
                assert pushed.status_code == 200, (headers, http2, pushed.text)
    finally:
        server.stop()


def test_cookie_authenticated_json_posts_must_say_application_json(tmp_path):
    """Issue 26 item 3: a /v1/ POST with a cookie and no Authorization needs Content-Type application/json (415)."""
    server = start(tmp_path, "--development")
    try:
        device = register_device(server, categories=CATEGORIES)
        path = f"{server.url}/v1/devices/{device['token']}/notifications/remove"
        body = json.dumps({"app": TOPIC, "ids": ["a"]})
        cookies = cookie_header(device_cookie(server, device))
        for content_type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]:
            refused = httpx.post(path, content=body, headers={**cookies, "content-type": content_type}, timeout=TIMEOUT)
            assert refused.status_code == 415, (content_type, refused.status_code, refused.text)
            assert "error" in refused.json()
        for content_type in ["application/json", "application/json; charset=utf-8"]:
            accepted = httpx.post(path, content=body, headers={**cookies, "content-type": content_type}, timeout=TIMEOUT)
            assert accepted.status_code == 200, (content_type, accepted.status_code, accepted.text)
            assert accepted.json() == {"removed": []}
        # A bearer token keeps accepting curl's default content type.
        curl = httpx.post(path, content=body, headers={**bearer(device), "content-type": "application/x-www-form-urlencoded"}, timeout=TIMEOUT)
        assert curl.status_code == 200, curl.text
    finally:
        server.stop()


def post_forms_of(text):
    return re.findall(r"<form\b[^>]*\bmethod=\"post\"[^>]*>.*?</form>", text, re.I | re.S)


def test_forms_carry_a_csrf_token_that_must_match_the_visitors_cookie(tmp_path):
    """Issue 26 item 3: every form has a csrf field and the page a huddle-csrf cookie; posts without the pair get 403."""
    server = start(tmp_path, "--development", "--demo")
    try:
        device = register_device(server, categories=CATEGORIES)
        token = device["token"]
        home = httpx.get(f"{server.url}/", timeout=TIMEOUT)
        unlock = httpx.get(f"{server.url}/devices/{token}", timeout=TIMEOUT)
        assert unlock.status_code == 401
        for label, page in [("/", home), ("the unlock page", unlock)]:
            line = set_cookies(page).get(CSRF_COOKIE, (None, ""))[1]
            attributes = [part.strip().lower() for part in line.split(";")]
            assert "httponly" in attributes and "samesite=strict" in attributes, f"{label}: Set-Cookie {line!r}"
        forms = post_forms_of(home.text) + post_forms_of(unlock.text)
        admin = sign_in(server)
        forms += post_forms_of(httpx.get(f"{server.url}/", headers=cookie_header({ADMIN_COOKIE: admin}), timeout=TIMEOUT).text)
        actions = {attribute(form.split(">")[0], "action") for form in forms}
        assert actions == {"/devices", "/demo/session", "/admin/session", f"/devices/{token}/session", "/admin/session/end"}, actions
        for form in forms:
            assert any(attribute(tag, "name") == "csrf" and attribute(tag, "type") == "hidden" and attribute(tag, "value")
                       for tag in re.findall(r"<input\b[^>]*>", form)), f"a form without a csrf field:\n{form}"

        targets = [
            ("/devices", {"name": "csrf"}, "/"), ("/admin/session", {"adminToken": ADMIN_TOKEN}, "/"),
            ("/admin/session/end", {}, "/"), ("/demo/session", {}, "/"), (f"/devices/{token}/session", {"secret": device["secret"]}, f"/devices/{token}"),
        ]
        before = listed_devices(server, admin)
        problems = []
        for path, fields, page in targets:
            mine, theirs = fresh_csrf(server, page), fresh_csrf(server, page)
            assert mine[0] and mine[1] and theirs[0], f"{page} gave no csrf pair: {mine}"
            attempts = {
                "no csrf field": post_form(server, path, fields, cookies={CSRF_COOKIE: mine[0]}),
                "no csrf cookie": post_form(server, path, {**fields, "csrf": mine[1]}),
                "a wrong field": post_form(server, path, {**fields, "csrf": "0" * len(mine[1])}, cookies={CSRF_COOKIE: mine[0]}),
                "another visitor's cookie": post_form(server, path, fields, csrf=(theirs[0], mine[1])),
            }
            for label, response in attempts.items():
                if response.status_code != 403:
                    problems.append(f"{path} with {label}: {response.status_code}, not 403")
                elif any(name != CSRF_COOKIE for name in set_cookies(response)):
                    problems.append(f"{path} with {label}: 403 but set {list(set_cookies(response))}")
            accepted = post_form(server, path, fields, csrf=mine)
            if accepted.status_code != 303:
                problems.append(f"{path} with the page's pair: {accepted.status_code}, not 303")
        assert not problems, "\n".join(problems)
        assert listed_devices(server, admin) == before + 1, "only the form post with the page's csrf pair creates a device"
        # What the page's script sends needs no field: JSON cannot come from another site without a preflight.
        json_session = httpx.post(f"{server.url}/devices/{token}/session", json={"secret": device["secret"]}, timeout=TIMEOUT)
        assert json_session.status_code == 204, json_session.text
    finally:
        server.stop()


class AttackerSite:
    """Another site on this machine: pages served by Python on another port of 127.0.0.1."""

    def __init__(self, pages):
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = site.pages.get(self.path.split("?")[0], "").encode()
                self.send_response(200 if body else 404)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_):
                pass

        self.pages = pages
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


ATTACK_PAGE = """<!doctype html><html><body>
<iframe name="sink-devices"></iframe><iframe name="sink-sign-out"></iframe>
<form id="create" method="post" action="TARGET/devices" target="sink-devices"><input name="name" value="csrf-form"></form>
<form id="sign-out" method="post" action="TARGET/admin/session/end" target="sink-sign-out"></form>
<script>
(async () => {
  const loaded = (name) => new Promise((resolve) => {
    document.querySelector(`iframe[name="${name}"]`).addEventListener("load", resolve, { once: true });
  });
  try {
    await fetch("TARGET/v1/devices", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: '{"name":"csrf"}' });
  } catch (error) {}
  const submitted = [loaded("sink-devices"), loaded("sink-sign-out")];
  document.getElementById("create").submit();
  document.getElementById("sign-out").submit();
  await Promise.all(submitted);
  document.title = "done";
})();
</script></body></html>"""

FRAME_PAGE = """<!doctype html><html><body>
<iframe id="victim" src="TARGET" onload="document.title = 'loaded'"></iframe>
</body></html>"""


def test_a_page_on_another_site_or_port_can_neither_write_nor_frame_the_center(tmp_path, browser):
    """Issue 26 item 3: in chromium, another port (same site) and localhost (cross-site) cannot create devices, sign out or frame."""
    server = start(tmp_path, "--development")
    target = f"http://127.0.0.1:{server.port}"
    device = register_device(server, categories=CATEGORIES)
    site = AttackerSite({"/attack": ATTACK_PAGE.replace("TARGET", target),
                         "/frame": FRAME_PAGE.replace("TARGET", f"{target}/devices/{device['token']}")})
    context = browser.new_context()
    try:
        admin = sign_in(server)
        before = listed_devices(server, admin)
        page = context.new_page()
        page.goto(f"{target}/")
        page.fill("#admin-token", ADMIN_TOKEN)
        page.click("#show-devices")
        expect(page.locator("#sign-out")).to_be_visible(timeout=TIMEOUT * 1000)
        # The device's center too, in this browser (the cookie a framed page would carry).
        page.goto(f"{target}/devices/{device['token']}#secret={device['secret']}")
        expect(page.locator("#stacks")).to_be_attached(timeout=TIMEOUT * 1000)

        for attacker in [f"http://127.0.0.1:{site.port}", f"http://localhost:{site.port}"]:
            attack = context.new_page()
            attack.goto(f"{attacker}/attack")
            attack.wait_for_function("document.title === 'done'", timeout=15_000)
            attack.close()
            assert listed_devices(server, admin) == before, f"a page at {attacker} created devices"
            page.goto(f"{target}/")
            expect(page.locator("#sign-out")).to_be_visible(timeout=TIMEOUT * 1000)
            assert page.locator("#admin-token").count() == 0, f"a page at {attacker} signed the admin out"

        for attacker in [f"http://127.0.0.1:{site.port}", f"http://localhost:{site.port}"]:
            framing = context.new_page()
            framing.goto(f"{attacker}/frame")
            framing.wait_for_function("document.title === 'loaded'", timeout=TIMEOUT * 1000)
            [frame] = [frame for frame in framing.frames if frame != framing.main_frame]
            # Blocked, the frame holds chromium's error page (chrome-error://chromewebdata/), not the center.
            shown = not frame.url.startswith("chrome-error:") and frame.evaluate("() => document.querySelector('#stacks, #secret') !== null")
            assert not shown, f"the center loaded in a frame of {attacker} ({frame.url})"
            framing.close()
    finally:
        context.close()
        site.close()
        server.stop()


# MARK: 4. Host names

def test_only_the_servers_own_host_names_are_answered(tmp_path):
    """Issue 26 item 4: a rebinding Host gets 421 naming --public-host; loopback names, IP literals and --public-host work."""
    server = start(tmp_path, "--development")
    public = start(tmp_path, "--public-host", "huddle.test")
    try:
        def routes(target):
            device = register_device(target, categories=CATEGORIES)
            return [
                ("GET", "/", {}, None), ("GET", f"/devices/{device['token']}", {}, None), ("GET", f"/devices/{device['token']}", bearer(device), None),
                ("POST", "/v1/devices", {}, {"name": "rebound"}), ("GET", f"/v1/devices/{device['token']}/center", bearer(device), None),
                ("GET", "/requests", {}, None), ("GET", "/v1/admin/requests", ADMIN, None),
            ]

        def send(target, host, method, path, headers, body):
            return httpx.request(method, f"{target.url}{path}", headers={**headers, "host": host}, json=body, timeout=TIMEOUT)

        problems = []
        for target, good, bad in [
            (server, ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "10.1.2.3:{port}"],
             ["rebind.attacker.example", "rebind.attacker.example:{port}", "huddle.test:{port}"]),
            (public, ["huddle.test:{port}", "127.0.0.1:{port}", "localhost:{port}"], ["rebind.attacker.example:{port}"]),
        ]:
            for method, path, headers, body in routes(target):
                for host in good:
                    response = send(target, host.format(port=target.port), method, path, headers, body)
                    if response.status_code == 421 or response.status_code >= 500:
                        problems.append(f"{method} {path} Host {host}: {response.status_code}")
                for host in bad:
                    response = send(target, host.format(port=target.port), method, path, headers, body)
                    if response.status_code != 421:
                        problems.append(f"{method} {path} Host {host}: {response.status_code}, not 421")
                    elif "--public-host" not in error_of(response):
                        problems.append(f"{method} {path} Host {host}: 421 {error_of(response)!r} does not name --public-host")
        assert not problems, "\n".join(problems)

        # The provider endpoint answers APNs whatever the Host or :authority: clients send Apple's names. Apple's
        # production host is the production environment, whose tokens a development device's is not
        # (docs/environments.md): a device registered for production takes those pushes.
        device = register_device(server, categories=CATEGORIES)
        release = httpx.post(f"{server.url}/v1/devices", json={"environment": "production"}, timeout=TIMEOUT).json()
        assert httpx.put(f"{server.url}/v1/devices/{release['token']}/apps/{TOPIC}", json={"categories": CATEGORIES},
                         headers={"authorization": f"Bearer {release['secret']}"}, timeout=TIMEOUT).status_code == 200
        for target, host in [(device, "api.sandbox.push.apple.com"), (release, "api.push.apple.com:443")]:
            for http2 in (False, True):
                pushed = push(server, target, {"alert": "hello"}, headers={"host": host}, http2=http2)
                assert pushed.status_code == 200 and pushed.headers.get("apns-id"), (host, http2, pushed.status_code, pushed.text)
        # Without provider tokens (--development) a push is a request a browser can send: under a name the server does
        # not have (a page using DNS rebinding) it is refused, as the site's routes are (issue 56).
        for http2 in (False, True):
            rebound = push(server, device, {"alert": "hello"}, headers={"host": "rebind.attacker.example"}, http2=http2)
            assert (rebound.status_code, rebound.json()["reason"]) == (403, "Forbidden") and "--public-host" in rebound.json()["description"]
        refused = httpx.post(f"{public.url}/3/device/{'ab' * 32}", content=b'{"aps":{"alert":"x"}}',
                             headers={"host": "api.sandbox.push.apple.com", "apns-topic": TOPIC}, timeout=TIMEOUT)
        assert (refused.status_code, refused.json().get("reason")) == (403, "MissingProviderToken"), refused.text
    finally:
        server.stop()
        public.stop()


def test_the_demo_cookie_is_not_set_for_a_rebinding_host(tmp_path):
    """Issue 26 item 4: POST /demo/session with a foreign Host gets 421 and no cookie."""
    server = start(tmp_path, "--development", "--demo")
    try:
        # Refused by the host before the demo is looked at: nothing to wait for.
        rebound = post_form(server, "/demo/session", {}, csrf=fresh_csrf(server), headers={"host": "rebind.attacker.example"})
        assert rebound.status_code == 421, (rebound.status_code, rebound.headers)
        assert f"huddle-{DEMO_TOKEN}" not in set_cookies(rebound)
        assert "--public-host" in error_of(rebound)
        own = post_form(server, "/demo/session", {}, csrf=fresh_csrf(server))
        assert own.status_code == 303 and f"huddle-{DEMO_TOKEN}" in set_cookies(own), (own.status_code, own.text[:200])
        # The demo's session is a device's web session like any other: it lasts as long (issue 57: it had no Max-Age,
        # and ended with the browser).
        [demo_cookie] = [line for line in own.headers.get_list("set-cookie") if line.startswith(f"huddle-{DEMO_TOKEN}=")]
        assert "; Max-Age=2592000" in demo_cookie and "; HttpOnly" in demo_cookie, demo_cookie
    finally:
        server.stop()


# MARK: 5. HTTP/2 timeouts

class RawH2:
    """A cleartext HTTP/2 connection whose every frame the test chooses."""

    def __init__(self, server):
        self.server = server
        self.socket = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        self.connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.connection.initiate_connection()
        self.socket.sendall(self.connection.data_to_send())
        self.events = []
        self.closed = False

    def headers(self, method, path, extra=(), end_stream=True):
        stream = self.connection.get_next_available_stream_id()
        self.connection.send_headers(stream, [(":method", method), (":scheme", "http"), (":authority", f"127.0.0.1:{self.server.port}"),
                                              (":path", path), *extra], end_stream=end_stream)
        self.flush()
        return stream

    def flush(self):
        data = self.connection.data_to_send()
        if data:
            self.socket.sendall(data)

    def read_until(self, done, seconds):
        """Reads frames until `done(event)` is true for one, or the server closes; (the event or "closed", when), or (None, None)."""
        started = time.monotonic()
        deadline = started + seconds
        while time.monotonic() < deadline:
            self.socket.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                data = self.socket.recv(65536)
            except socket.timeout:
                break
            except (ConnectionResetError, ConnectionAbortedError):
                data = b""
            if not data:
                self.closed = True
                return "closed", time.monotonic() - started
            try:
                received = self.connection.receive_data(data)
            except h2.exceptions.ProtocolError:
                # h2 drops the whole read when a frame follows a GOAWAY in it (a graceful close sends GOAWAY
                # and PING together): a connection h2 now holds closed was told to go.
                if self.connection.state_machine.state != h2.connection.ConnectionState.CLOSED:
                    raise
                received = [h2.events.ConnectionTerminated()]
            # Every event of the read is kept in `events`, also those after the one looked for.
            self.events.extend(received)
            found = next((event for event in received if done(event)), None)
            if found is not None:
                return found, time.monotonic() - started
            try:
                self.flush()
            except OSError:
                pass
        return None, None

    def close(self):
        self.socket.close()


def stops(stream=None):
    return lambda event: isinstance(event, h2.events.ConnectionTerminated) or (
        stream is not None and isinstance(event, h2.events.StreamReset) and event.stream_id == stream)


def test_an_http2_connection_that_sends_only_the_preface_is_closed(tmp_path):
    """Issue 26 item 5 (a): preface and SETTINGS only, with --request-timeout 2: closed within about 2–4 s."""
    server = start(tmp_path, "--request-timeout", "2", "--idle-timeout", "6")
    connection = RawH2(server)
    try:
        # Deadlines, not measured times: sent away within 6 s (the timeout is 2), cut off within 4 s more.
        what, _ = connection.read_until(stops(), seconds=6)
        if isinstance(what, h2.events.ConnectionTerminated):
            # A client that does not leave after the GOAWAY is cut off one --request-timeout later.
            closed, _ = connection.read_until(lambda event: False, seconds=4)
            assert closed == "closed", "a GOAWAY but the connection stayed open"
        assert what is not None, "the connection was still open 6 s after its preface"
        assert httpx.get(f"{server.url}/health", timeout=TIMEOUT).status_code == 200
    finally:
        connection.close()
        server.stop()


def test_an_http2_request_whose_body_never_ends_is_reset(tmp_path):
    """Issue 26 item 5 (b): a push whose body never gets END_STREAM is reset (or its connection closed) within about 2–4 s."""
    server = start(tmp_path, "--development", "--request-timeout", "2", "--idle-timeout", "6")
    device = register_device(server, categories=CATEGORIES)
    connection = RawH2(server)
    try:
        stream = connection.headers("POST", f"/3/device/{device['token']}",
                                    [("apns-topic", TOPIC), ("content-length", "100")], end_stream=False)
        connection.connection.send_data(stream, b'{"aps": {"alert": ', end_stream=False)
        connection.flush()
        what, _ = connection.read_until(stops(stream), seconds=6)
        assert what is not None, f"the stalled stream was still open 6 s later (events: {connection.events})"
        assert httpx.get(f"{server.url}/health", timeout=TIMEOUT).status_code == 200
    finally:
        connection.close()
        server.stop()


def test_an_http2_api_request_whose_body_stops_is_reset(tmp_path):
    """The request timeout holds for every stream, not only pushes: a device API request whose body stops
    coming is reset within about 4–6 s, while a stream whose body keeps coming slowly, and ends within the
    timeout (a total: test_deadlines.py has the body that trickles past it), is not."""
    server = start(tmp_path, "--request-timeout", "4", "--idle-timeout", "60")
    connection = RawH2(server)
    try:
        stalled = connection.headers("POST", "/v1/devices", [("content-type", "application/json"), ("content-length", "100")],
                                     end_stream=False)
        connection.connection.send_data(stalled, b'{"name": ', end_stream=False)
        connection.flush()
        # Without a content-length, as HTTP/2 allows: the body is read all the same, and its name kept.
        slow = connection.headers("POST", "/v1/devices", [("content-type", "application/json")], end_stream=False)
        body = json.dumps({"name": "slow but steady"}).encode()
        for byte in body[:-1]:
            connection.connection.send_data(slow, bytes([byte]), end_stream=False)
            connection.flush()
            reset, _ = connection.read_until(stops(slow), seconds=0.05)
            assert reset is None, f"a stream whose body kept coming was reset: {reset}"
        connection.connection.send_data(slow, body[-1:], end_stream=True)
        connection.flush()
        answered, _ = connection.read_until(
            lambda event: isinstance(event, h2.events.ResponseReceived) and event.stream_id == slow, seconds=5)
        assert isinstance(answered, h2.events.ResponseReceived), connection.events[-4:]
        assert dict(answered.headers)[":status"] == "201", answered.headers
        _, _ = connection.read_until(lambda event: isinstance(event, h2.events.StreamEnded) and event.stream_id == slow, seconds=5)
        created = b"".join(event.data for event in connection.events if isinstance(event, h2.events.DataReceived) and event.stream_id == slow)
        assert json.loads(created)["name"] == "slow but steady", created
        what = next(filter(stops(stalled), connection.events), None) or connection.read_until(stops(stalled), seconds=6)[0]
        assert what is not None, f"the stalled request was still open well past the request timeout: {connection.events[-4:]}"
    finally:
        connection.close()
        server.stop()


def test_an_http2_stream_whose_headers_cannot_be_read_is_reset(tmp_path):
    """A stream whose request head HTTP/2 accepts but the server cannot read (a method with a character no method
    has) does not hold its connection open: it is reset within about the request timeout."""
    server = start(tmp_path, "--request-timeout", "2", "--idle-timeout", "60")
    connection = RawH2(server)
    try:
        stream = connection.headers("GET(", "/health", end_stream=False)
        what, _ = connection.read_until(stops(stream), seconds=6)
        assert what is not None, f"the stream was still open 6 s later, with --request-timeout 2: {connection.events[-4:]}"
    finally:
        connection.close()
        server.stop()


def test_an_http2_connection_with_only_cheap_requests_answered_is_sent_away(tmp_path):
    """Issue 26 item 5: an answered GET (or a stream the server timed out) does not buy the long idle timeout:
    with no stream open and no push accepted, the connection is sent away after --request-timeout."""
    server = start(tmp_path, "--request-timeout", "2", "--idle-timeout", "60")
    connection = RawH2(server)
    try:
        stream = connection.headers("GET", "/health")
        ended, _ = connection.read_until(lambda event: isinstance(event, h2.events.StreamEnded) and event.stream_id == stream, seconds=5)
        assert isinstance(ended, h2.events.StreamEnded), f"no answer to GET /health: {connection.events}"
        what, _ = connection.read_until(stops(), seconds=6)
        assert what is not None, "an HTTP/2 connection with one GET answered was still open 6 s later, with --request-timeout 2"
    finally:
        connection.close()
        server.stop()


def accepted_and_still_open(connection, stream, body, what):
    """Sends `body` on `stream`, checks it is answered 200, then that the idle connection is still open 4 s later (past a
    --request-timeout of 2 s) and answers a PING."""
    connection.connection.send_data(stream, body, end_stream=True)
    connection.flush()
    ended, _ = connection.read_until(lambda event: isinstance(event, h2.events.StreamEnded) and event.stream_id == stream, seconds=5)
    assert isinstance(ended, h2.events.StreamEnded), f"no answer to the {what}: {connection.events}"
    status = next(dict(event.headers)[":status"] for event in connection.events if isinstance(event, h2.events.ResponseReceived))
    assert status == "200"
    early, _ = connection.read_until(stops(), seconds=4)
    assert early is None, f"closed after an accepted {what}, before the idle timeout"
    connection.connection.ping(b"accepted")
    connection.flush()
    ack, _ = connection.read_until(lambda event: isinstance(event, h2.events.PingAckReceived), seconds=2)
    assert isinstance(ack, h2.events.PingAckReceived), f"no PING ACK 4 s after an accepted {what}: {ack}"


def test_an_idle_http2_connection_stays_until_the_idle_timeout_once_a_push_was_accepted(tmp_path):
    """Issue 26 item 5 (c): after an accepted push, an idle h2c connection answers a PING at 4 s (past the
    request timeout) and is closed by the 6 s idle timeout."""
    server = start(tmp_path, "--request-timeout", "2", "--idle-timeout", "6", "--development")
    connection = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        stream = connection.headers("POST", f"/3/device/{device['token']}", extra=[("apns-topic", TOPIC)], end_stream=False)
        accepted_and_still_open(connection, stream, json.dumps({"aps": {"alert": "held"}}).encode(), "push")
        # ... and sent away by the idle timeout of 6 s (with room for the GOAWAY's own round).
        what, _ = connection.read_until(stops(), seconds=7)
        assert what is not None, "still open 11 s after the push, with --idle-timeout 6"
    finally:
        connection.close()
        server.stop()


def test_an_accepted_fcm_send_makes_an_http2_connection_a_providers_too(tmp_path):
    """Issue 57: the endpoint tells the transport it accepted a sender's message, whichever sender; the transport no
    longer reads an answer's apns-id for it, which an FCM send has none of. After an accepted messages:send, an idle
    h2c connection answers a PING at 4 s, past the request timeout of 2 s (an unaccepted one is sent away at 2)."""
    server = start(tmp_path, "--request-timeout", "2", "--idle-timeout", "60", "--development")
    connection = RawH2(server)
    try:
        pixel = httpx.post(f"{server.url}/v1/devices", json={"platform": "android"}, timeout=TIMEOUT).json()
        app = httpx.put(f"{server.url}/v1/devices/{pixel['token']}/apps/com.example.android.chat", timeout=TIMEOUT,
                        headers={"authorization": f"Bearer {pixel['secret']}"}, json={"channels": [{"id": "c", "name": "C"}]}).json()
        stream = connection.headers("POST", "/v1/projects/p/messages:send", extra=[("content-type", "application/json")], end_stream=False)
        accepted_and_still_open(connection, stream, json.dumps({"message": {"token": app["fcmToken"], "data": {"k": "v"}}}).encode(), "FCM send")
    finally:
        connection.close()
        server.stop()


def test_a_live_stream_over_http2_keeps_its_connection_past_the_request_timeout(tmp_path):
    """Issue 26 item 5: an open stream is not an idle connection. A center stream over h2c, quiet for twice
    --request-timeout, is neither reset nor sent away, and the next push still reaches it."""
    server = start(tmp_path, "--request-timeout", "2", "--idle-timeout", "60", "--development")
    connection = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        stream = connection.headers("GET", f"/v1/devices/{device['token']}/stream",
                                    [("authorization", f"Bearer {device['secret']}"), ("accept", "text/event-stream")])
        first, _ = connection.read_until(lambda event: isinstance(event, h2.events.DataReceived) and b"event: center" in event.data, seconds=5)
        assert isinstance(first, h2.events.DataReceived), f"the stream did not open: {connection.events}"
        quiet, _ = connection.read_until(stops(stream), seconds=5)
        assert quiet is None, f"the open stream was ended while quiet, with --request-timeout 2: {quiet}"
        response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC},
                              json={"aps": {"alert": {"title": "Teja", "body": "still there?"}}}, timeout=TIMEOUT)
        assert response.status_code == 200, response.text
        change, _ = connection.read_until(lambda event: isinstance(event, h2.events.DataReceived) and b"still there?" in event.data, seconds=5)
        assert isinstance(change, h2.events.DataReceived), f"the push did not reach the stream: {connection.events[-3:]}"
    finally:
        connection.close()
        server.stop()


def test_a_ping_flood_is_sent_away_and_costs_no_one_else(tmp_path):
    """A client that sends PINGs without end (each of which the server must answer) is sent away with GOAWAY
    ENHANCE_YOUR_CALM once it passes NIO's bound on control frames (200 in 30 s), and pushes on another
    connection go on being answered."""
    server = start(tmp_path, "--development")
    flood = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        for number in range(1000):
            flood.connection.ping(number.to_bytes(8, "big"))
        try:
            flood.flush()
        except OSError:
            pass  # sent away before the last of them went out
        what, _ = flood.read_until(lambda event: isinstance(event, h2.events.ConnectionTerminated), seconds=5)
        assert isinstance(what, h2.events.ConnectionTerminated), f"1,000 PINGs were all answered: {what}"
        assert what.error_code == h2.errors.ErrorCodes.ENHANCE_YOUR_CALM, what
        acks = sum(isinstance(event, h2.events.PingAckReceived) for event in flood.events)
        assert acks <= 200, f"{acks} PINGs answered before the connection was sent away"
        response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC},
                              json={"aps": {"alert": "after the flood"}}, timeout=TIMEOUT)
        assert response.status_code == 200, response.text
    finally:
        flood.close()
        server.stop()


def send_without_end(connection, stream, limit):
    """Sends body bytes on `stream` as fast as its flow-control window lets, without ending it, until the server
    answers the stream or `limit` bytes are sent; the bytes sent."""
    sent = 0
    chunk = b"x" * 16384
    while sent < limit:
        window = min(connection.connection.local_flow_control_window(stream), len(chunk))
        if window > 0:
            connection.connection.send_data(stream, chunk[:window])
            connection.flush()
            sent += window
        answered, _ = connection.read_until(
            lambda event: isinstance(event, (h2.events.ResponseReceived, h2.events.StreamReset)) and event.stream_id == stream,
            seconds=0.01 if window > 0 else 1)
        if answered is not None:
            break
    return sent


def test_a_push_whose_body_never_ends_is_answered_and_its_stream_reset(tmp_path):
    """A push whose body goes on past what the server drops (64 KiB) is answered then, in the order of the checks
    (an unknown device before the payload's size), and its stream reset with NO_ERROR (RFC 9113 §8.1), so the
    client keeps the answer; the connection stays usable."""
    server = start(tmp_path, "--development")
    connection = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        for token, status, reason in [(device["token"], "413", "PayloadTooLarge"), ("ab" * 32, "400", "BadDeviceToken")]:
            stream = connection.headers("POST", f"/3/device/{token}", extra=[("apns-topic", TOPIC)], end_stream=False)
            sent = send_without_end(connection, stream, 4 * 1024 * 1024)
            assert sent < 1024 * 1024, f"{sent} bytes of one push's body were read without an answer"
            def is_reset(event, stream=stream):
                return isinstance(event, h2.events.StreamReset) and event.stream_id == stream
            reset = next(filter(is_reset, connection.events), None) or connection.read_until(is_reset, seconds=5)[0]
            assert isinstance(reset, h2.events.StreamReset), f"the stream was not reset after its answer: {connection.events[-4:]}"
            assert reset.error_code == h2.errors.ErrorCodes.NO_ERROR, reset
            answer = next(event for event in connection.events if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream)
            body = b"".join(event.data for event in connection.events if isinstance(event, h2.events.DataReceived) and event.stream_id == stream)
            assert dict(answer.headers)[":status"] == status, (answer.headers, body)
            assert json.loads(body)["reason"] == reason, body
        # The connection goes on: a push on it is answered 200.
        stream = connection.headers("POST", f"/3/device/{device['token']}", extra=[("apns-topic", TOPIC)], end_stream=False)
        connection.connection.send_data(stream, json.dumps({"aps": {"alert": "after"}}).encode(), end_stream=True)
        connection.flush()
        ended, _ = connection.read_until(lambda event: isinstance(event, h2.events.StreamEnded) and event.stream_id == stream, seconds=5)
        assert isinstance(ended, h2.events.StreamEnded), connection.events[-4:]
        answer = next(event for event in connection.events if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream)
        assert dict(answer.headers)[":status"] == "200"
    finally:
        connection.close()
        server.stop()


def test_a_malformed_request_resets_its_own_stream_and_the_connection_goes_on(tmp_path):
    """A malformed request (an upper-case header name, RFC 9113 §8.2.1) is a stream error (§5.4.2): its stream is reset
    with PROTOCOL_ERROR, a push in flight on another stream of the connection is still answered, and the connection
    takes new streams after it. A connection error (a DATA frame on stream 0, §6.1) still sends GOAWAY and closes."""
    server = start(tmp_path, "--development")
    connection = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        # The client's library would refuse to send the malformed header: its checks are turned off.
        connection.connection.config = h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8", validate_outbound_headers=False, normalize_outbound_headers=False)
        body = json.dumps({"aps": {"alert": {"title": "Ali", "body": "in flight"}}}).encode()
        push = connection.headers("POST", f"/3/device/{device['token']}", extra=[("apns-topic", TOPIC)], end_stream=False)
        malformed = connection.headers("GET", "/health", extra=[("X-Upper-Case", "1")])
        reset, _ = connection.read_until(lambda event: isinstance(event, h2.events.StreamReset) and event.stream_id == malformed, seconds=5)
        assert isinstance(reset, h2.events.StreamReset), f"the malformed stream was not reset: {connection.events[-4:]}"
        assert reset.error_code == h2.errors.ErrorCodes.PROTOCOL_ERROR, reset
        # The push in flight when the other stream failed: its body ends now, and it is answered.
        connection.connection.send_data(push, body, end_stream=True)
        connection.flush()
        answered = stops_or_answers(push)
        answer, _ = connection.read_until(answered, seconds=5)
        assert isinstance(answer, h2.events.ResponseReceived), f"the push in flight was not answered: {answer} {connection.events[-4:]}"
        assert dict(answer.headers)[":status"] == "200", answer.headers
        after = connection.headers("GET", "/health")
        answer, _ = connection.read_until(stops_or_answers(after), seconds=5)
        assert isinstance(answer, h2.events.ResponseReceived), f"no new stream was answered after the reset: {answer}"
        assert dict(answer.headers)[":status"] == "200", answer.headers
        stored = httpx.get(f"{server.url}/v1/devices/{device['token']}/center", timeout=TIMEOUT,
                           headers={"authorization": f"Bearer {device['secret']}"}).json()
        assert "in flight" in json.dumps(stored), stored

        # A frame only a connection can be wrong about: DATA on stream 0 (type 0x0, no flags, length 0).
        connection.socket.sendall(bytes(9))
        what, _ = connection.read_until(lambda event: isinstance(event, h2.events.ConnectionTerminated), seconds=5)
        assert isinstance(what, h2.events.ConnectionTerminated), f"no GOAWAY after a connection error: {what}"
        assert what.error_code == h2.errors.ErrorCodes.PROTOCOL_ERROR, what
        closed, _ = connection.read_until(lambda event: False, seconds=5)
        assert closed == "closed", "the connection stayed open after its connection error"
    finally:
        connection.close()
        server.stop()


def test_a_flood_of_malformed_requests_ends_the_connection(tmp_path):
    """Each malformed request resets only its stream, but not without end: past 200 stream errors in 30 s (NIO's
    HTTP/2 handler's limit) the connection gets GOAWAY ENHANCE_YOUR_CALM and is closed."""
    server = start(tmp_path, "--development")
    connection = RawH2(server)
    try:
        connection.connection.config = h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8", validate_outbound_headers=False, normalize_outbound_headers=False)
        for _ in range(201):
            stream = connection.connection.get_next_available_stream_id()
            connection.connection.send_headers(stream, [(":method", "GET"), (":scheme", "http"), (":authority", "x"), (":path", "/health"),
                                                        ("X-Upper-Case", "1")], end_stream=True)
        try:
            connection.flush()
        except OSError:
            pass  # closed while the flood was being written: what the read below finds
        what, _ = connection.read_until(lambda event: isinstance(event, h2.events.ConnectionTerminated), seconds=5)
        assert isinstance(what, h2.events.ConnectionTerminated), f"201 malformed requests and no GOAWAY: {what}"
        assert what.error_code == h2.errors.ErrorCodes.ENHANCE_YOUR_CALM, what
        resets = [event for event in connection.events if isinstance(event, h2.events.StreamReset)]
        assert len(resets) == 200 and all(event.error_code == h2.errors.ErrorCodes.PROTOCOL_ERROR for event in resets), len(resets)
        closed, _ = connection.read_until(lambda event: False, seconds=5)
        assert closed == "closed", "the connection stayed open after its GOAWAY"
        assert httpx.get(f"{server.url}/health", timeout=TIMEOUT).status_code == 200
    finally:
        connection.close()
        server.stop()


def stops_or_answers(stream):
    return lambda event: stops(stream)(event) or (isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream)


def test_a_push_padding_its_body_draws_a_bounded_window_and_is_reset_at_the_request_deadline(tmp_path):
    """Padding counts against HTTP/2's window but not the body: a push that sends one byte of data and 255 of padding
    per frame is given window back only up to about the longest body read (64 KiB), not the 16 MB its 64 KiB of data
    would take; what it then holds back, the request deadline ends (RST_STREAM CANCEL)."""
    server = start(tmp_path, "--development", "--request-timeout", "3")
    connection = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        stream = connection.headers("POST", f"/3/device/{device['token']}", extra=[("apns-topic", TOPIC)], end_stream=False)
        drawn = 0
        reset = None
        while reset is None and drawn < 4 * 1024 * 1024:
            # As many frames as the window takes (each 256 bytes of it), then whatever the server sent meanwhile.
            frames = connection.connection.local_flow_control_window(stream) // 256
            for _ in range(frames):
                connection.connection.send_data(stream, b"x", pad_length=254)
            drawn += frames * 256
            connection.flush()
            reset, _ = connection.read_until(
                lambda event: isinstance(event, h2.events.StreamReset) and event.stream_id == stream, seconds=0.05 if frames else 1)
        assert drawn < 256 * 1024, f"{drawn} bytes of padded body drew window"
        assert isinstance(reset, h2.events.StreamReset), connection.events[-4:]
        assert reset.error_code == h2.errors.ErrorCodes.CANCEL, reset
    finally:
        connection.close()
        server.stop()


def test_an_http1_push_whose_body_never_ends_is_answered_and_its_connection_closed(tmp_path):
    """Over HTTP/1.1, a push announcing 100 MB is answered PayloadTooLarge with `Connection: close` once 64 KiB
    of it have come; the server then reads no more of it and closes."""
    server = start(tmp_path, "--development")
    try:
        device = register_device(server, categories=CATEGORIES)
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        sock.sendall((f"POST /3/device/{device['token']} HTTP/1.1\r\nHost: 127.0.0.1\r\napns-topic: {TOPIC}\r\n"
                      f"Content-Length: 100000000\r\n\r\n").encode())
        sent = 0
        sock.setblocking(False)
        chunk = b"x" * 65536
        received = b""
        deadline = time.monotonic() + 10
        while b"\r\n\r\n" not in received and time.monotonic() < deadline:
            try:
                sent += sock.send(chunk)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:
                break
            try:
                received += sock.recv(65536)
            except BlockingIOError:
                pass
        sock.setblocking(True)
        sock.settimeout(5)
        while True:
            more = sock.recv(65536)
            if not more:
                break
            received += more
        sock.close()
        head, _, body = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413"), received[:300]
        assert b"connection: close" in head.lower(), head
        assert json.loads(body)["reason"] == "PayloadTooLarge", body
        # What the client managed to send is the dropped 64 KiB and what the sockets' buffers took, not 100 MB.
        assert sent < 16 * 1024 * 1024, f"{sent} bytes sent and read"
        assert httpx.get(f"{server.url}/health", timeout=TIMEOUT).status_code == 200
    finally:
        server.stop()


def test_an_idle_timeout_of_zero_is_refused(tmp_path):
    """Issue 26 item 5 (d): `huddle serve --idle-timeout 0` does not start."""
    refused = subprocess.run([str(HUDDLE), "serve", "--idle-timeout", "0", "--port", str(free_port()), "--database", str(tmp_path / "h.sqlite")],
                             capture_output=True, text=True, timeout=30)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0, output
    # Refused as a limit (`every limit must be a positive number`, as the other limits), not as an option it does not know.
    assert "unknown option" not in output.lower() and ("idle-timeout" in output or "positive" in output), output


# MARK: 6. Length limits on what pages show

def test_names_and_ids_that_reach_pages_are_bounded(tmp_path):
    """Issue 26 item 6: app names over 200 characters and local notification ids over 256 bytes are refused; device names stay within 200."""
    server = start(tmp_path, "--development")
    try:
        device = register_device(server, categories=CATEGORIES)
        app = f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}"
        long_name = httpx.put(app, headers=bearer(device), json={"name": "N" * 201}, timeout=TIMEOUT)
        assert long_name.status_code == 400 and "200" in error_of(long_name), (long_name.status_code, long_name.text[:200])
        huge_name = httpx.put(app, headers=bearer(device), json={"name": "N" * 200_000}, timeout=TIMEOUT)
        assert huge_name.status_code in (400, 413), huge_name.status_code
        fits = httpx.put(app, headers=bearer(device), json={"name": "N" * 200}, timeout=TIMEOUT)
        assert fits.status_code == 200 and fits.json()["name"] == "N" * 200, fits.text[:200]

        # Device names: the API refuses a long one, the home page's form keeps its first 200 characters.
        refused = httpx.post(f"{server.url}/v1/devices", json={"name": "D" * 201}, timeout=TIMEOUT)
        assert refused.status_code == 400 and "200" in error_of(refused), refused.text
        created = post_form(server, "/devices", {"name": "F" * 300}, csrf=fresh_csrf(server))
        assert created.status_code == 303, created.status_code
        token = re.search(r"/devices/([0-9a-f]{64})", created.headers["location"]).group(1)
        # The page that made it opens it with the cookie its redirect brings (no secret in the address).
        session = re.match(rf"huddle-{token}=([0-9a-f]+);", created.headers["set-cookie"]).group(1)
        described = httpx.get(f"{server.url}/v1/devices/{token}", cookies={f"huddle-{token}": session}, timeout=TIMEOUT).json()
        assert described["name"] == "F" * 200, len(described["name"])

        local = f"{app}/notifications"
        for identifier in ["i" * 257, "é" * 129]:  # 257 bytes; 129 characters but 258 bytes
            response = httpx.post(local, headers=bearer(device), json={"id": identifier, "content": {"title": "t"}}, timeout=TIMEOUT)
            assert response.status_code == 400 and error_of(response), (len(identifier.encode()), response.status_code, response.text[:200])
        fits = httpx.post(local, headers=bearer(device), json={"id": "i" * 256, "content": {"title": "t"}}, timeout=TIMEOUT)
        assert fits.status_code == 201, fits.text[:200]
    finally:
        server.stop()


# MARK: 7. Credentials

def test_empty_tokens_are_refused_at_start(tmp_path):
    """Issue 26 item 7: an empty admin, registration or metrics token (option or environment) stops `huddle serve` at start."""
    base_environment = {name: value for name, value in os.environ.items() if not name.startswith("HUDDLE_")}
    variants = [
        ("--admin-token ''", ["--admin-token", ""], {}, ["--admin-token"]),
        ("HUDDLE_ADMIN_TOKEN=", [], {"HUDDLE_ADMIN_TOKEN": ""}, ["--admin-token", "HUDDLE_ADMIN_TOKEN"]),
        ("--registration-token ''", ["--registration-token", ""], {}, ["--registration-token"]),
        ("HUDDLE_REGISTRATION_TOKEN=", [], {"HUDDLE_REGISTRATION_TOKEN": ""}, ["--registration-token", "HUDDLE_REGISTRATION_TOKEN"]),
        ("--metrics-token ''", ["--metrics-token", ""], {}, ["--metrics-token"]),
        ("HUDDLE_METRICS_TOKEN=", [], {"HUDDLE_METRICS_TOKEN": ""}, ["--metrics-token", "HUDDLE_METRICS_TOKEN"]),
    ]
    processes = []
    for index, (label, arguments, environment, _) in enumerate(variants):
        command = [str(HUDDLE), "serve", "--port", str(free_port()), "--database", str(tmp_path / f"empty-{index}.sqlite"), *arguments]
        processes.append(subprocess.Popen(command, env={**base_environment, **environment}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    problems = []
    deadline = time.monotonic() + 20
    for (label, _, _, names), process in zip(variants, processes):
        try:
            output, _ = process.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
            problems.append(f"{label}: the server started")
            continue
        if process.returncode == 0:
            problems.append(f"{label}: exit status 0")
        elif not any(name in output for name in names):
            problems.append(f"{label}: the message names none of {names}: {output.strip()[-300:]!r}")
    assert not problems, "\n".join(problems)


def test_the_admin_session_is_random_and_ends_at_sign_out(tmp_path):
    """Issue 26 item 7: the admin cookie is a random session, not HMAC(token), and is worthless after sign-out."""
    server = start(tmp_path)
    try:
        first, second = sign_in(server), sign_in(server)
        derived = hmac.new(ADMIN_TOKEN.encode(), b"huddle admin session", hashlib.sha256).hexdigest()
        assert first != second, "two sign-ins got the same cookie"
        assert derived not in (first, second), "the cookie is HMAC-SHA256(admin token)"
        assert ADMIN_TOKEN not in first and len(first) >= 32
        for cookie in (first, second):
            works = httpx.get(f"{server.url}/v1/admin/requests", headers=cookie_header({ADMIN_COOKIE: cookie}), timeout=TIMEOUT)
            assert works.status_code == 200, works.text

        ended = post_form(server, "/admin/session/end", {}, csrf=fresh_csrf(server), cookies={ADMIN_COOKIE: first})
        assert ended.status_code == 303, ended.status_code
        replayed = httpx.get(f"{server.url}/v1/admin/requests", headers=cookie_header({ADMIN_COOKIE: first}), timeout=TIMEOUT)
        assert replayed.status_code == 401, f"the cookie still works after sign-out: {replayed.status_code}"
        home = httpx.get(f"{server.url}/", headers=cookie_header({ADMIN_COOKIE: first}), timeout=TIMEOUT)
        assert 'id="admin-token"' in home.text and 'id="sign-out"' not in home.text
        # The other session is its own.
        other = httpx.get(f"{server.url}/v1/admin/requests", headers=cookie_header({ADMIN_COOKIE: second}), timeout=TIMEOUT)
        assert other.status_code == 200
        assert httpx.get(f"{server.url}/v1/admin/requests", headers=cookie_header({ADMIN_COOKIE: derived}), timeout=TIMEOUT).status_code == 401
    finally:
        server.stop()


def test_an_inspector_stream_opened_by_session_ends_with_the_session(tmp_path):
    """Issue 26 item 7: signing out also stops the inspector's live stream that the session opened (at its
    next wake-up: here, the next provider request)."""
    server = start(tmp_path, "--development")
    try:
        session = sign_in(server)
        device = register_device(server, categories=CATEGORIES)
        push = lambda: httpx.Client(http2=True, http1=False).post(
            f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC}, json={"aps": {"alert": "x"}}, timeout=TIMEOUT)
        with httpx.Client(timeout=httpx.Timeout(10, read=8)) as client:
            with client.stream("GET", f"{server.url}/v1/admin/requests/stream", headers=cookie_header({ADMIN_COOKIE: session})) as stream:
                assert stream.status_code == 200
                lines = stream.iter_lines()
                assert push().status_code == 200
                assert any(line.startswith("event: request") for line in lines), "no event while signed in"
                ended = post_form(server, "/admin/session/end", {}, csrf=fresh_csrf(server), cookies={ADMIN_COOKIE: session})
                assert ended.status_code == 303
                assert push().status_code == 200
                after = []
                try:
                    for line in lines:
                        after.append(line)
                except httpx.ReadTimeout:
                    raise AssertionError("the stream went on after sign-out")
                assert not any(line.startswith("event: request") for line in after), after
    finally:
        server.stop()


def test_admin_sign_in_attempts_are_limited_per_client(tmp_path):
    """Issue 26 item 7, as issue 41 changed it: after 10 wrong admin tokens in a minute, the 11th wrong one gets
    429 with Retry-After after a pause, while the right token still signs in: guessing is slowed, the admin is
    never locked out."""
    server = start(tmp_path)
    try:
        for attempt in range(10):
            wrong = post_form(server, "/admin/session", {"adminToken": f"wrong-{attempt}"}, csrf=fresh_csrf(server))
            assert wrong.status_code == 401, f"attempt {attempt + 1}: {wrong.status_code}"
            assert ADMIN_COOKIE not in set_cookies(wrong)
        limited = post_form(server, "/admin/session", {"adminToken": "wrong-10"}, csrf=fresh_csrf(server))
        assert limited.status_code == 429, f"the 11th attempt got {limited.status_code}"
        assert int(limited.headers["retry-after"]) > 0
        assert ADMIN_COOKIE not in set_cookies(limited)
        signed_in = post_form(server, "/admin/session", {"adminToken": ADMIN_TOKEN}, csrf=fresh_csrf(server))
        assert signed_in.status_code == 303 and ADMIN_COOKIE in set_cookies(signed_in), signed_in.status_code
    finally:
        server.stop()
