"""What the latest attack on FCM, settings and Android found (issue 56), each answered as the API it came through
answers, on every store: one floor of limits for every sender's message once it is a push for a device, text that no
store keeps refused before any commit, access tokens held to the grant's checks, every view of an Android phone drawn
by the one function that knows its lock screen, and the site's host rule for requests a browser can send.
"""
import base64
import json
import time

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

import sse
from conftest import ADMIN_TOKEN, ANDROID_PACKAGE, FCM_PROJECT, TOPIC, Server, installed_app, read_center, register_android_phone, register_device

PACKAGE = ANDROID_PACKAGE


def android_phone(server):
    """An Android phone with Chat and its channel; returns the device, its Authorization header and Chat's token."""
    device, auth, apps = register_android_phone(server)
    return device, auth, apps[PACKAGE]["fcmToken"]


def refusal(response):
    """An FCM error's status and the description of its field violation."""
    error = response.json()["error"]
    violations = [detail for detail in error.get("details", []) if "fieldViolations" in detail]
    return error["status"], " ".join(violation["description"] for detail in violations for violation in detail["fieldViolations"])


def test_text_no_store_keeps_is_refused_before_the_commit_on_every_store(tmp_path, database):
    """A NUL character is refused with a 400 that names the field, on SQLite as on PostgreSQL (which answered 500 and
    retried the commit batch write by write); nothing is stored, and the next push is."""
    server = Server(str(tmp_path), tls=False, database=database, extra=("--development",))
    try:
        with httpx.Client(base_url=server.url) as client:
            named = client.post("/v1/devices", json={"name": "a\u0000"})
            assert named.status_code == 400 and "name" in named.text and "NUL" in named.text
            iphone = client.post("/v1/devices", json={"name": "iPhone"}).json()
            auth = {"authorization": f"Bearer {iphone['secret']}"}
            app = f"/v1/devices/{iphone['token']}/apps/{TOPIC}"
            assert client.put(app, headers=auth, json={"name": "Chat\u0000"}).status_code == 400
            assert client.put(app, headers=auth, json={"developmentLanguage": "e\u0000n"}).status_code == 400
            assert client.put(app, headers=auth, json={"developmentLanguage": "e" * 65}).status_code == 400
            assert client.put(app, headers=auth, json={"name": "Chat"}).status_code == 200
            local = client.post(f"{app}/notifications", headers=auth, json={"id": "a\u0000b", "content": {"title": "Hi"}})
            assert local.status_code == 400 and "id" in local.text and "NUL" in local.text
            pixel, _, android_token = android_phone(server)
            send = f"/v1/projects/{FCM_PROJECT}/messages:send"
            tagged = client.post(send, json={"message": {"token": android_token, "android": {
                "notification": {"title": "Hi", "tag": "a\u0000b", "channel_id": "chats"}}}})
            assert tagged.status_code == 400, tagged.text
            assert refusal(tagged)[0] == "INVALID_ARGUMENT" and "tag" in refusal(tagged)[1]
            collapsing = client.post(send, json={"message": {"token": installed_app(server, iphone)["fcmToken"], "notification": {"title": "Hi"},
                                                            "apns": {"headers": {"apns-collapse-id": "a\u0000b"}}}})
            assert collapsing.status_code == 400 and "apns-collapse-id" in refusal(collapsing)[1]
            # Nothing refused was stored; what comes next is.
            assert read_center(server, iphone)["groups"] == []
            sent = client.post(send, json={"message": {"token": android_token, "android": {
                "notification": {"title": "Stored", "tag": "t", "channel_id": "chats"}}}})
            assert sent.status_code == 200, sent.text
            assert [entry["title"] for entry in read_center(server, pixel)["entries"]] == ["Stored"]
    finally:
        server.stop()
    assert "error" not in server.log_path.read_text().lower()


def test_fcm_messages_meet_the_limits_an_apns_push_meets(plain_server, fcm_app):
    """To an iPhone, FCM's APNs headers are held to APNs' rules; to an Android phone, every text of the notification
    counts toward the 4 KB limit, and a tag is an identifier of at most 256 bytes."""
    access_token = fcm_app.credential.get_access_token().access_token
    headers = {"authorization": f"Bearer {access_token}"}
    send = f"{plain_server.url}/v1/projects/{FCM_PROJECT}/messages:send"
    with httpx.Client(base_url=plain_server.url) as client:
        iphone = register_device(plain_server)
        iphone_token = installed_app(plain_server, iphone)["fcmToken"]
        _, _, android_token = android_phone(plain_server)

    def to_iphone(apns_headers):
        return httpx.post(send, headers=headers, json={"message": {
            "token": iphone_token, "notification": {"title": "Hi"}, "apns": {"headers": apns_headers}}})

    long_collapse = to_iphone({"apns-collapse-id": "c" * 60_000})
    assert long_collapse.status_code == 400 and "BadCollapseId" in refusal(long_collapse)[1]
    priority = to_iphone({"apns-priority": "7"})
    assert priority.status_code == 400 and "BadPriority" in refusal(priority)[1]
    assert to_iphone({"apns-collapse-id": "c" * 64, "apns-priority": "5"}).status_code == 200

    def to_android(notification):
        return httpx.post(send, headers=headers, json={"message": {
            "token": android_token, "android": {"notification": {"title": "Hi", "channel_id": "chats", **notification}}}})

    for too_big in ({"tag": "t" * 5_000}, {"title_loc_key": "K", "title_loc_args": ["a" * 1_000] * 5}, {"image": "https://x/" + "i" * 5_000},
                    {"icon": "i" * 5_000}):
        answer = to_android(too_big)
        assert answer.status_code == 400 and "too big" in refusal(answer)[1], (list(too_big), answer.text)
    long_tag = to_android({"tag": "t" * 300})
    assert long_tag.status_code == 400 and "tag" in refusal(long_tag)[1] and "256" in refusal(long_tag)[1]
    assert to_android({"tag": "t" * 256}).status_code == 200


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def assertion(account, issued_at, expires_at, audience="https://oauth2.googleapis.com/token"):
    """An assertion signed by the service account's own key, as a client library signs one, with the times and
    audience given."""
    key = serialization.load_pem_private_key(account["private_key"].encode(), password=None)
    header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}).encode())
    claims = b64(json.dumps({"iss": account["client_email"], "aud": audience, "iat": issued_at, "exp": expires_at,
                             "scope": "https://www.googleapis.com/auth/firebase.messaging"}).encode())
    signature = key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{header}.{claims}.{b64(signature)}"


def test_an_access_token_carries_only_what_the_grant_checked(plain_server, fcm_app, fcm_account_file):
    """`ya29.huddle.` and an assertion the grant would refuse is no access token: a ten-year expiry, a foreign
    audience, an issue time a year ahead are each refused by /token and by messages:send alike."""
    account = json.loads(fcm_account_file.read_text())
    with httpx.Client(base_url=plain_server.url) as client:
        _, _, token = android_phone(plain_server)
    now = int(time.time())
    body = {"message": {"token": token, "data": {"a": "b"}}}
    send = f"{plain_server.url}/v1/projects/{FCM_PROJECT}/messages:send"
    for name, forged in {
        "ten years": assertion(account, now, now + 10 * 365 * 86_400),
        "foreign audience": assertion(account, now, now + 3_600, audience="https://evil.example/oauth"),
        "a year ahead": assertion(account, now + 365 * 86_400, now + 365 * 86_400 + 3_600),
    }.items():
        grant = httpx.post(f"{plain_server.url}/token",
                           data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": forged})
        assert grant.status_code == 400, (name, grant.text)
        used = httpx.post(send, json=body, headers={"authorization": f"Bearer ya29.huddle.{forged}"})
        assert used.status_code == 401 and used.json()["error"]["status"] == "UNAUTHENTICATED", (name, used.text)
    fair = assertion(account, now, now + 3_600)
    assert httpx.post(send, json=body, headers={"authorization": f"Bearer ya29.huddle.{fair}"}).status_code == 200


def test_an_android_phones_locked_stream_hides_what_its_lock_screen_hides(plain_server, fcm_app):
    """The stream of an Android phone carries its shade, drawn for the viewer: locked, a SECRET notification is not
    there at all (not its title, tag or data), as in the locked shade and center; unlocked, it is."""
    from firebase_admin import messaging

    with httpx.Client(base_url=plain_server.url) as client:
        pixel, auth, token = android_phone(plain_server)
    for title, tag, visibility in (("Score", "public-tag", "public"), ("Bank", "secret-tag", "secret")):
        messaging.send(messaging.Message(token=token, data={"account": f"{tag}-data"}, android=messaging.AndroidConfig(
            notification=messaging.AndroidNotification(title=title, body="…", tag=tag, channel_id="chats", visibility=visibility))),
            app=fcm_app)

    def first_event(locked):
        with httpx.stream("GET", f"{plain_server.url}/v1/devices/{pixel['token']}/stream", params={"locked": str(locked).lower()},
                          headers=auth, timeout=10) as stream:
            return next(sse.events(stream))

    locked = first_event(True)
    assert locked.name == "center" and "Bank" not in locked.data and "secret-tag" not in locked.data, locked.data
    assert locked.json()["shade"] == read_center(plain_server, pixel, locked="true")
    assert "Score" in locked.data
    unlocked = first_event(False)
    assert "Bank" in unlocked.data and unlocked.json()["shade"] == read_center(plain_server, pixel)


def test_a_development_server_answers_requests_without_credentials_under_its_own_names_only(tmp_path):
    """With --development, a request without a token is one a browser can send: under a host name the server does not
    have (a page using DNS rebinding), FCM answers 421 and APNs 403, as the device API does; under the server's own
    names, an IP address or Apple's hosts, they are taken."""
    server = Server(str(tmp_path), tls=False, extra=("--development",))
    try:
        with httpx.Client(base_url=server.url) as client:
            _, _, token = android_phone(server)
            iphone = register_device(server)
            send = f"/v1/projects/{FCM_PROJECT}/messages:send"
            body = {"message": {"topic": "news", "data": {"a": "b"}}}
            rebound = client.post(send, json=body, headers={"host": "attacker.example"})
            assert rebound.status_code == 421 and rebound.json()["error"]["status"] == "PERMISSION_DENIED", rebound.text
            assert client.post("/v1/devices", headers={"host": "attacker.example"}).status_code == 421
            assert client.post(send, json=body, headers={"host": f"localhost:{server.port}"}).status_code == 200
            assert client.post(send, json={"message": {"token": token, "data": {"a": "b"}}}).status_code == 200
            push = f"/3/device/{iphone['token']}"
            apns_headers = {"apns-topic": TOPIC}
            payload = {"aps": {"alert": "hi"}}
            refused = client.post(push, json=payload, headers={**apns_headers, "host": "attacker.example"})
            assert refused.status_code == 403 and refused.json()["reason"] == "Forbidden", refused.text
            # A token is not checked in --development, so it does not stand in for the host's check.
            assert client.post(push, json=payload, headers={**apns_headers, "host": "attacker.example",
                                                            "authorization": "bearer x"}).status_code == 403
            for host in ("api.sandbox.push.apple.com", f"127.0.0.1:{server.port}"):
                assert client.post(push, json=payload, headers={**apns_headers, "host": host}).status_code == 200, host
    finally:
        server.stop()


def test_a_focus_names_apps_not_megabytes(plain_server):
    """A Focus's allowed apps are app identifiers (at most 255 bytes each, 256 of them): the bound on a device's
    settings, which the summary service reads."""
    with httpx.Client(base_url=plain_server.url) as client:
        device = client.post("/v1/devices", json={"name": "Focus"}).json()
        settings = f"/v1/devices/{device['token']}/settings"
        auth = {"authorization": f"Bearer {device['secret']}"}
        for apps in (["a" * 256], ["com.example.chat", "not an app"], [""]):
            refused = client.patch(settings, headers=auth, json={"focus": {"allowedApps": apps}})
            assert refused.status_code == 400 and "allowedApps" in refused.text, refused.text
        largest = [f"{n:03d}." + "a" * 250 for n in range(256)]
        taken = client.patch(settings, headers=auth, json={"focus": {"allowedApps": largest}})
        assert taken.status_code == 200 and len(taken.json()["focus"]["allowedApps"]) == 256
