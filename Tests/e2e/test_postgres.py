"""Two `huddle serve` processes sharing one PostgreSQL database behave as one service: a push accepted by one
shows on the other, live, and a device deleted through one is gone from the other.

The server comes from HUDDLE_TEST_POSTGRES_URL (scripts/test starts a throwaway one); each test makes its own
database on it with psql.
"""
import json
import os
import subprocess
import threading
import time
import uuid

import httpx
import pytest

from conftest import HUDDLE, KEY_ID, TEAM_ID, TOPIC, Server, read_center, register_device, register_key
from jwt_tokens import token
from sse import events


@pytest.fixture
def database(postgres_database):
    return postgres_database


def push(server, device, jwt, body, collapse_id=None):
    headers = {"authorization": f"bearer {jwt}", "apns-topic": TOPIC}
    if collapse_id:
        headers["apns-collapse-id"] = collapse_id
    with httpx.Client(http1=False, http2=True) as client:
        return client.post(f"{server.url}/3/device/{device['token']}", content=json.dumps(body), headers=headers)


def test_two_servers_share_one_database(tmp_path, keys, database):
    first = Server(str(tmp_path), tls=False, database=database)
    second = Server(str(tmp_path), tls=False, database=database)
    try:
        register_key(first, keys[2])
        device = register_device(first)
        jwt = token(keys[1], KEY_ID, TEAM_ID)

        # A live stream on the second server, open before the first server takes the push.
        received, opened = [], threading.Event()

        def listen():
            with httpx.Client(timeout=httpx.Timeout(20, read=20)) as client:
                with client.stream("GET", f"{second.url}/v1/devices/{device['token']}/stream",
                                   headers={"authorization": f"Bearer {device['secret']}"}) as response:
                    assert response.status_code == 200
                    opened.set()
                    for line in response.iter_lines():
                        received.append(line)
                        if "Pizza?" in line:
                            return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        # The server subscribes a stream before it answers the request, so once the headers are here the push
        # reaches it: through the PostgreSQL notice, or, if the second server is not listening for notices yet,
        # through the catch-up of every loaded center it does when it starts listening.
        assert opened.wait(10), "the second server's stream did not open"

        response = push(first, device, jwt, {"aps": {"alert": {"title": "Teja", "body": "Pizza?"}, "thread-id": "team"}})
        assert response.status_code == 200, response.text
        listener.join(timeout=15)
        assert any("Pizza?" in line for line in received), f"the second server's stream never showed the push: {received[-5:]}"

        # Read back through the other server: the same center.
        groups = read_center(second, device)["groups"]
        assert [notification["body"] for group in groups for notification in group["notifications"]] == ["Pizza?"]

        # The signing key registered through the first server authenticates pushes to the second.
        response = push(second, device, jwt, {"aps": {"alert": {"title": "Teja", "body": "Now?"}, "thread-id": "team"}})
        assert response.status_code == 200, response.text
        # The first server follows the change through PostgreSQL's notice: read until it shows, with a deadline.
        deadline = time.monotonic() + 10
        while "Now?" not in (bodies := [n["body"] for group in read_center(first, device)["groups"] for n in group["notifications"]]):
            assert time.monotonic() < deadline, f"the first server's center did not show the second server's push within 10 s: {bodies}"
            time.sleep(0.1)
        assert bodies == ["Now?", "Pizza?"]

        # Deleted through the second server, the device is gone from the first: pushes are answered Unregistered.
        with httpx.Client() as client:
            response = client.delete(f"{second.url}/v1/devices/{device['token']}", headers={"authorization": f"Bearer {device['secret']}"})
            assert response.status_code in (200, 204), response.text
        response = push(first, device, jwt, {"aps": {"alert": {"body": "Anyone?"}}})
        assert response.status_code == 410, response.text
        assert response.json()["reason"] == "Unregistered"
    finally:
        first.stop()
        second.stop()


def test_serve_refuses_a_database_from_a_newer_huddle(tmp_path, database):
    subprocess.run([str(HUDDLE), "migrate", "--database", database], check=True, capture_output=True)
    subprocess.run(["psql", "-q", database, "-c", "INSERT INTO schema_migrations VALUES ('999 from the future', 0)"], check=True)
    result = subprocess.run([str(HUDDLE), "serve", "--port", "0", "--database", database],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "written by a newer Huddle (unknown migrations: 999 from the future); upgrade Huddle" in result.stderr


def test_a_viewer_resumes_across_a_server_restart_without_loss_or_repeats(tmp_path, keys, database):
    """A viewer of the first server, which restarts while the second takes pushes: reconnecting with its
    Last-Event-ID, it gets the center as it now is (nothing lost), then later changes numbered after it
    (nothing repeated)."""
    first = Server(str(tmp_path), tls=False, database=database, extra=["--development"])
    second = Server(str(tmp_path), tls=False, database=database, extra=["--development"])
    try:
        device = register_device(first)
        headers = {"authorization": f"Bearer {device['secret']}"}

        def deliver(body):
            with httpx.Client(http1=False, http2=True) as client:
                response = client.post(f"{second.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC},
                                       content=json.dumps({"aps": {"alert": {"title": "Teja", "body": body}, "thread-id": "team"}}))
                assert response.status_code == 200, response.text

        def read_until(last_event_id, predicate, opened=None):
            """The first server's stream's events, up to the first that `predicate` accepts; `opened` is set once
            the stream is open (the server subscribes it before answering, so what is delivered after reaches it)."""
            seen = []
            request_headers = dict(headers, **({"last-event-id": last_event_id} if last_event_id else {}))
            with httpx.Client(timeout=httpx.Timeout(20, read=20)) as client:
                with client.stream("GET", f"{first.url}/v1/devices/{device['token']}/stream", headers=request_headers) as response:
                    assert response.status_code == 200, response.read()
                    if opened is not None:
                        opened.set()
                    for event in events(response):
                        seen.append(event)
                        if predicate(event):
                            return seen
            return seen

        opened = threading.Event()
        before = []

        def watch():
            before.extend(read_until(None, lambda event: event.name == "change" and "second" in event.data, opened))

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert opened.wait(10), "the first server's stream did not open"
        deliver("first")
        deliver("second")
        watcher.join(timeout=15)
        assert not watcher.is_alive(), f"the stream did not show both deliveries within 15 s: {before}"
        assert [event.name for event in before] == ["center", "change", "change"]
        last_id = before[-1].id

        first.stop()
        deliver("while first was down, one")
        deliver("while first was down, two")
        first.start()

        after = read_until(last_id, lambda event: event.name == "center")
        [resumed] = after
        bodies = [n["body"] for group in resumed.json()["center"]["groups"] for n in group["notifications"]]
        assert bodies == ["while first was down, two", "while first was down, one", "second", "first"]
        assert int(resumed.id) == int(last_id) + 2

        resumed_id = resumed.id
        watcher_events = []
        opened.clear()

        def watch_again():
            watcher_events.extend(read_until(resumed_id, lambda event: "third" in event.data, opened))

        watcher = threading.Thread(target=watch_again, daemon=True)
        watcher.start()
        # Resuming from the newest event, the stream sends nothing until the next change: wait for it to be open.
        assert opened.wait(10), "the resumed stream did not open"
        deliver("third")
        watcher.join(timeout=15)
        assert not watcher.is_alive(), f"the resumed stream did not show the third delivery within 15 s: {watcher_events}"
        assert [(event.name, int(event.id)) for event in watcher_events] == [("change", int(resumed_id) + 1)]
    finally:
        first.stop()
        second.stop()


def test_a_web_push_subscription_is_one_across_servers_sharing_the_database(tmp_path, database):
    """Web Push (issue 58) on PostgreSQL: a subscription made on one server is pushed to through the other, and an
    unsubscribe on the first is answered 410 by the second, whose device session follows the first's change."""
    from test_web_push import DECLARATIVE, application_server, push as web_push, refusal, register_iphone, subscribe
    first = Server(str(tmp_path), tls=False, database=database)
    second = Server(str(tmp_path), tls=False, database=database)
    try:
        vapid, key = application_server()
        device, auth = register_iphone(first)
        subscription, location = subscribe(first, device, auth, key)
        through_second = dict(subscription, endpoint=subscription["endpoint"].replace(first.url, second.url))
        assert web_push(second, through_second, DECLARATIVE, vapid).status_code == 201
        assert [n["title"] for g in read_center(first, device)["groups"] for n in g["notifications"]] == ["Order shipped"]
        assert httpx.delete(f"{first.url}{location}", headers=auth).status_code == 204
        deadline = time.time() + 10
        while True:
            try:
                web_push(second, through_second, DECLARATIVE, vapid)
            except Exception:  # WebPushException once the second server has the change
                break
            assert time.time() < deadline, "the second server still takes pushes to an unsubscribed endpoint"
            time.sleep(0.1)
        assert refusal(second, through_second, DECLARATIVE, vapid).status_code == 410
    finally:
        first.stop()
        second.stop()
