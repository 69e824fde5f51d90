"""The provider request inspector: every request to /3/device/… is recorded with its answer, and readable
through the admin API (filters, one request with the group it landed in, a live stream), from a terminal
(`huddle requests --follow`) and on the page /requests in Debian's chromium."""
import asyncio
import json
import re
import ssl
import subprocess
import threading
import time
import uuid

import aioapns
import aioapns.connection
import httpx
import pytest
from playwright.sync_api import expect

from conftest import ADMIN_TOKEN, HUDDLE, KEY_ID, TEAM_ID, TOPIC, Server, register_device
from jwt_tokens import token
from sse import events
from test_home import VISIBLE_CHROME_WORDS, latin_words

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


def verification(server):
    return ssl.create_default_context(cafile=str(server.cert)) if server.tls else True


def requests_of(server, **query):
    response = httpx.get(f"{server.url}/v1/admin/requests", params=query, headers=ADMIN, verify=verification(server))
    assert response.status_code == 200, response.text
    return response.json()["requests"]


def test_aioapns_pushes_are_recorded_with_their_answers(tls_server, keys):
    device = register_device(tls_server)
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = "localhost"
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = tls_server.port
    accepted_id, refused_id = str(uuid.uuid4()), str(uuid.uuid4())

    async def send():
        apns = aioapns.APNs(key=keys[1], key_id=KEY_ID, team_id=TEAM_ID, topic=TOPIC, use_sandbox=False,
                            ssl_context=ssl.create_default_context(cafile=str(tls_server.cert)))
        good = aioapns.NotificationRequest(
            device_token=device["token"], notification_id=accepted_id, push_type=aioapns.PushType.ALERT,
            message={"aps": {"alert": {"title": "Teja", "body": "Pizza?"}, "thread-id": "team"}})
        bad = aioapns.NotificationRequest(device_token="0" * 64, notification_id=refused_id, message={"aps": {"alert": "x"}},
                                          push_type=aioapns.PushType.ALERT)
        return [await apns.send_notification(good), await apns.send_notification(bad)]

    results = asyncio.run(send())
    assert [result.is_successful for result in results] == [True, False]

    accepted = requests_of(tls_server, device=device["token"])[0]
    assert accepted["answer"] == {"status": 200, "apnsID": accepted_id, "uniqueID": accepted["answer"]["uniqueID"]}
    assert uuid.UUID(accepted["answer"]["uniqueID"])
    assert accepted["topic"] == TOPIC and accepted["headers"]["apns-id"] == accepted_id
    assert accepted["connection"]["httpVersion"] == "HTTP/2" and accepted["connection"]["tls"] is True
    assert accepted["connection"]["client"].startswith("127.0.0.1:")
    assert accepted["payload"]["aps"]["alert"]["title"] == "Teja"
    # The token's key, team and age; never the token.
    assert accepted["providerToken"]["keyID"] == KEY_ID and accepted["providerToken"]["teamID"] == TEAM_ID
    assert 0 <= accepted["providerToken"]["ageSeconds"] < 600
    assert "authorization" not in json.dumps(accepted).lower()

    refused = requests_of(tls_server, reason="BadDeviceToken")[0]
    assert refused["answer"] == {"status": 400, "reason": "BadDeviceToken", "apnsID": refused_id}
    assert refused["deviceToken"] == "0" * 64
    assert all(record["answer"]["status"] == 400 for record in requests_of(tls_server, status=400))

    # One request, with the group its notification landed in.
    detail = httpx.get(f"{tls_server.url}/v1/admin/requests/{accepted['id']}", headers=ADMIN, verify=verification(tls_server)).json()
    assert detail["notification"] == {"app": TOPIC, "identifier": accepted_id, "group": f"{TOPIC}/team"}


def test_a_bad_payload_is_recorded_as_sent_with_the_reason(plain_server, keys):
    device = register_device(plain_server)
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    response = httpx.post(f"{plain_server.url}/3/device/{device['token']}", content=b"{not json",
                          headers={"authorization": f"bearer {jwt}", "apns-topic": TOPIC})
    assert response.status_code == 400
    record = requests_of(plain_server, device=device["token"])[0]
    assert record["answer"]["reason"] == "BadPayload" and "description" in record["answer"]
    assert record["payloadText"] == "{not json"
    assert record["connection"]["httpVersion"] == "HTTP/1.1" and record["connection"]["tls"] is False


def test_the_inspector_needs_the_admin_token_and_bounds_its_queries(plain_server):
    assert httpx.get(f"{plain_server.url}/v1/admin/requests").status_code == 401
    assert httpx.get(f"{plain_server.url}/v1/admin/requests", headers={"authorization": "Bearer nope"}).status_code == 401
    for query in ({"limit": "0"}, {"limit": "1001"}, {"status": "abc"}, {"since": "yesterday"}, {"device": "x" * 300}):
        response = httpx.get(f"{plain_server.url}/v1/admin/requests", params=query, headers=ADMIN)
        assert response.status_code == 400, (query, response.text)
        assert list(query)[0] in response.json()["error"]
    assert httpx.get(f"{plain_server.url}/v1/admin/requests/999999999", headers=ADMIN).status_code == 404


def test_the_stream_and_huddle_requests_follow_show_a_push_as_it_arrives(plain_server, keys):
    device = register_device(plain_server)
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    follower = subprocess.Popen(
        [str(HUDDLE), "requests", "--server", plain_server.url, "--admin-token", ADMIN_TOKEN, "--follow", "--format", "json",
         "--device", device["token"], "--last", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    received = []
    try:
        with httpx.Client(timeout=10) as client, client.stream(
                "GET", f"{plain_server.url}/v1/admin/requests/stream", params={"device": device["token"]}, headers=ADMIN) as stream:
            # curl pushes after both watchers are listening.
            def push():
                subprocess.run(["curl", "-s", "--http2-prior-knowledge", f"{plain_server.url}/3/device/{device['token']}",
                                "-H", f"authorization: bearer {jwt}", "-H", f"apns-topic: {TOPIC}", "-H", "apns-collapse-id: live",
                                "-d", json.dumps({"aps": {"alert": "live"}})], check=True, capture_output=True)
            threading.Timer(1.0, push).start()
            for event in events(stream):
                if event.name == "request":
                    received.append(event.json())
                    break
        line = follower.stdout.readline()
    finally:
        follower.terminate()
        follower.wait(timeout=10)
    assert received[0]["answer"]["status"] == 200 and received[0]["headers"]["apns-collapse-id"] == "live"
    printed = json.loads(line)
    assert printed["id"] == received[0]["id"] and printed["notification"]["identifier"] == "live"


def sign_in_and_open_the_inspector(page, server, query=""):
    """Signs in as the admin on the home page (the admin cookie), then follows its link to the inspector."""
    page.goto(f"{server.url}/{query}")
    page.fill("#admin-token", ADMIN_TOKEN)
    page.click("#show-devices")
    page.locator("footer.links a[href^='/requests']").click()
    expect(page.locator("#requests")).to_be_visible()


def test_the_page_shows_a_refused_push_live_and_opens_it(plain_server, keys, browser):
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = context.new_page()
        refused_answers = []
        page.on("response", lambda response: refused_answers.append(response.url) if response.status >= 400 else None)
        page.goto(f"{plain_server.url}/requests")
        expect(page.locator("#signed-out")).to_be_visible()
        # The page knew the viewer was signed out: its script asked nothing that was refused.
        assert refused_answers == [], refused_answers
        sign_in_and_open_the_inspector(page, plain_server)
        expect(page.locator("h1")).to_have_text("Provider requests")
        expect(page.locator("#status")).to_have_text("live")
        refused_id = str(uuid.uuid4())
        response = httpx.post(f"{plain_server.url}/3/device/{'0' * 64}", content=json.dumps({"aps": {"alert": "x"}}),
                              headers={"authorization": f"bearer {jwt}", "apns-topic": TOPIC, "apns-id": refused_id})
        assert response.status_code == 400
        row = page.locator("#requests tbody tr", has_text=refused_id)
        expect(row.locator(".reason")).to_have_text("BadDeviceToken")
        row.click()
        expect(page.locator("#detail-title")).to_have_text(re.compile(r"^Request \d+$"))
        expect(page.locator("#detail-status")).to_have_text("400")
        expect(page.locator("#detail-reason")).to_have_text("BadDeviceToken")
        expect(page.locator("#detail-apns-id")).to_have_text(refused_id)
        # A refused push stored nothing.
        expect(page.locator("#detail-notification")).to_be_hidden()
        assert jwt not in page.content()
        # The check the Russian test makes finds the page's own words, so it would find them left in English.
        assert {"Provider", "requests", "Time", "Answer", "Headers", "Payload"} <= latin_words(page.evaluate(INSPECTOR_WORDS))
    finally:
        context.close()


# The visible words of the page's own: not the requests' data (the table's rows, the values of one
# request's view), not code.
INSPECTOR_WORDS = VISIBLE_CHROME_WORDS.replace("code, pre, option", "code, pre, option, #requests tbody, dd")


def test_the_inspector_and_one_request_read_in_russian(plain_server, keys, browser):
    device = register_device(plain_server)
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = context.new_page()
        # The home page in Russian links the inspector in Russian, whatever the browser's language.
        sign_in_and_open_the_inspector(page, plain_server, "?languages=ru")
        assert "languages=ru" in page.url
        expect(page.locator("h1")).to_have_text("Запросы провайдера")
        expect(page.locator("#status")).to_have_text("на связи")
        assert latin_words(page.evaluate(INSPECTOR_WORDS)) == set()

        accepted_id = str(uuid.uuid4())
        payload = {"aps": {"alert": {"title": "Teja", "body": "Pizza?"}, "thread-id": "team"}, "order": 7}
        response = httpx.post(f"{plain_server.url}/3/device/{device['token']}", content=json.dumps(payload),
                              headers={"authorization": f"bearer {jwt}", "apns-topic": TOPIC, "apns-id": accepted_id,
                                       "apns-push-type": "alert", "apns-priority": "10"})
        assert response.status_code == 200
        row = page.locator("#requests tbody tr", has_text=accepted_id)
        expect(row.locator(".status")).to_have_text("200")
        row.click()
        detail = page.locator("#detail")
        expect(page.locator("#detail-title")).to_have_text(re.compile(r"^Запрос \d+$"))
        expect(page.locator("#detail-status")).to_have_text("200")
        expect(detail.locator(".when-refused").first).to_be_hidden()
        # The notification it stored, the group it is in, and the center to open.
        expect(page.locator("#detail-app")).to_have_text(TOPIC)
        expect(page.locator("#detail-identifier")).to_have_text(accepted_id)
        expect(page.locator("#detail-group")).to_have_text(f"{TOPIC}/team")
        expect(page.locator("#detail-gone")).to_be_hidden()
        link = page.get_by_role("link", name="Открыть центр")
        expect(link).to_have_attribute("href", f"/devices/{device['token']}?languages=ru")
        # Every apns- header, as a term and its value.
        headers = page.locator("#detail-headers dt.header code").all_text_contents()
        assert {"apns-topic", "apns-id", "apns-push-type", "apns-priority"} <= set(headers), headers
        expect(page.locator("#detail-connection")).to_have_text(re.compile(r"^HTTP/1\.1 · 127\.0\.0\.1:\d+$"))
        expect(page.locator("#detail-key-id")).to_have_text(KEY_ID)
        expect(page.locator("#detail-team-id")).to_have_text(TEAM_ID)
        # The token's age in Russian, by the browser's Intl ("сейчас", "5 секунд назад").
        expect(page.locator("#detail-issued")).to_have_text(re.compile(r"сейчас|назад"))
        # The payload as received, pretty-printed: one member a line, indented.
        shown = page.locator("#detail-payload").text_content()
        assert json.loads(shown) == payload and '\n  "aps": {\n    "alert": {' in shown, shown
        assert latin_words(page.evaluate(INSPECTOR_WORDS)) == set()

        # Removed since, the notification is said to be gone.
        cleared = httpx.delete(f"{plain_server.url}/v1/devices/{device['token']}/apps/{TOPIC}/notifications",
                               headers={"authorization": f"Bearer {device['secret']}"})
        assert cleared.status_code == 200, cleared.text
        row.click()
        expect(page.locator("#detail-gone")).to_have_text("Его больше нет в центре.")
        expect(page.locator("#detail-group")).to_be_hidden()
    finally:
        context.close()


def test_inspector_streams_count_among_the_servers_live_streams(tmp_path):
    server = Server(str(tmp_path), tls=False, extra=["--max-streams-per-device", "1"])
    try:
        with httpx.Client(timeout=10) as client, client.stream("GET", f"{server.url}/v1/admin/requests/stream", headers=ADMIN) as first:
            assert first.status_code == 200
            second = client.get(f"{server.url}/v1/admin/requests/stream", headers=ADMIN)
            assert second.status_code == 429 and "--max-streams-per-device" in second.json()["error"]
        # Closed, its place is free again once the server finds the client gone: at a write, which a request
        # (or a heartbeat) brings. The first write after the client left can still succeed (the client's
        # reset comes back after it), so each attempt brings another.
        for _ in range(100):
            httpx.post(f"{server.url}/3/device/{'0' * 64}", content=b"{}", headers={"apns-topic": TOPIC})
            with httpx.Client(timeout=10) as client, client.stream(
                    "GET", f"{server.url}/v1/admin/requests/stream", headers=ADMIN) as again:
                if again.status_code == 200:
                    break
            time.sleep(0.1)
        assert again.status_code == 200
    finally:
        server.stop()


def test_a_stream_resuming_from_before_a_restart_gets_the_whole_history_in_order(tmp_path):
    # The page's EventSource sends its last event's number when it reconnects; after the server started again,
    # that number belongs to the old numbering, and every request the new server holds is news.
    server = Server(str(tmp_path), tls=False)
    try:
        for device in ["a" * 64, "b" * 64, "a" * 64]:
            httpx.post(f"{server.url}/3/device/{device}", content=b"{}", headers={"apns-topic": TOPIC})
        received = []
        with httpx.Client(timeout=10) as client, client.stream(
                "GET", f"{server.url}/v1/admin/requests/stream", params={"device": "a" * 64},
                headers={**ADMIN, "last-event-id": "5000"}) as stream:
            for event in events(stream):
                if event.name == "request":
                    received.append(event.json()["id"])
                if len(received) == 2:
                    break
        assert received == [1, 3]
    finally:
        server.stop()


def test_an_accepted_push_is_answered_an_apns_unique_id_that_finds_its_request(tmp_path):
    """Apple answers apns-unique-id in development; the inspector and huddle requests find the request by it."""
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        device = register_device(server)
        accepted = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC},
                              json={"aps": {"alert": {"title": "Teja", "body": "hi"}}})
        unique_id = accepted.headers["apns-unique-id"]
        assert accepted.status_code == 200 and uuid.UUID(unique_id).hex and unique_id == unique_id.lower()
        refused = httpx.post(f"{server.url}/3/device/{'0' * 64}", headers={"apns-topic": TOPIC}, json={"aps": {"alert": "x"}})
        assert refused.status_code == 400 and "apns-unique-id" not in refused.headers
        admin = {"authorization": f"Bearer {ADMIN_TOKEN}"}
        found = httpx.get(f"{server.url}/v1/admin/requests", headers=admin, params={"unique-id": unique_id.upper()}).json()["requests"]
        assert [(r["answer"]["uniqueID"], r["answer"]["apnsID"]) for r in found] == [(unique_id, accepted.headers["apns-id"])]
        printed = subprocess.run([str(HUDDLE), "requests", "--server", server.url, "--admin-token", ADMIN_TOKEN, "--unique-id", unique_id,
                                  "--format", "json"], capture_output=True, text=True, timeout=60)
        assert printed.returncode == 0, printed.stderr
        assert [json.loads(line)["answer"]["uniqueID"] for line in printed.stdout.splitlines()] == [unique_id]
    finally:
        server.stop()
