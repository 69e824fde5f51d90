"""Assertions that wait (issue 30): a CI job asks "did these pushes arrive?" and gets the answer the moment they
did, or a clear no when the time is up, instead of sleeping and polling; and it can start from a clean server."""

import subprocess
import threading
import time

import httpx

from conftest import ADMIN_TOKEN, HUDDLE, TOPIC, Server, read_center, register_device

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
# Waits below are for a minute; one that answers within half of it was woken by what it waited for. (Not a
# speed check: the bound only tells waking from timing out.)
WOKEN_WITHIN = 30


def push(server, device, body="hi", collapse=None):
    headers = {"apns-topic": TOPIC, **({"apns-collapse-id": collapse} if collapse else {})}
    return httpx.post(f"{server.url}/3/device/{device['token']}", headers=headers,
                      json={"aps": {"alert": {"title": "Teja", "body": body}, "thread-id": "team"}}, timeout=10)


def later(seconds, action):
    """Runs `action` after `seconds` on a thread of its own (a push that comes while a request waits)."""
    thread = threading.Thread(target=lambda: (time.sleep(seconds), action()), daemon=True)
    thread.start()
    return thread


def test_a_list_that_waits_answers_when_the_requests_came_or_says_they_did_not(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        device = register_device(server)
        with httpx.Client(headers=ADMIN, timeout=30) as client:
            # Two pushes come while the list waits for two: it answers once both are there, not when its minute
            # is up (a wait that only looked again at the end would take the minute).
            pushes = later(0.5, lambda: (push(server, device, "one"), push(server, device, "two")))
            asked = time.monotonic()
            answer = client.get(f"{server.url}/v1/admin/requests", params={"device": device["token"], "status": 200, "wait": 60, "count": 2})
            pushes.join(10)
            assert answer.status_code == 200, answer.text
            assert time.monotonic() - asked < WOKEN_WITHIN
            assert answer.json()["wait"] == {"count": 2, "found": 2, "timedOut": False}
            assert len(answer.json()["requests"]) == 2
            # Waiting for what does not come: the time runs out, and the answer says so.
            missing = client.get(f"{server.url}/v1/admin/requests", params={"status": 400, "wait": 1, "count": 1})
            assert missing.json()["wait"] == {"count": 1, "found": 0, "timedOut": True}
            assert missing.json()["requests"] == []
            # Filters by push type and apns-id.
            apns_id = answer.json()["requests"][0]["answer"]["apnsID"]
            assert [r["answer"]["apnsID"] for r in client.get(f"{server.url}/v1/admin/requests", params={"apns-id": apns_id.upper()}).json()["requests"]] == [apns_id]
            assert client.get(f"{server.url}/v1/admin/requests", params={"push-type": "background"}).json()["requests"] == []
            assert len(client.get(f"{server.url}/v1/admin/requests", params={"push-type": "alert"}).json()["requests"]) == 2
            # A wait that is out of bounds is refused, with the bound.
            refused = client.get(f"{server.url}/v1/admin/requests", params={"wait": 301})
            assert refused.status_code == 400 and "wait: expected a number from 0 to 300" in refused.text
            # Clearing the history: a test sees its own requests only.
            assert client.delete(f"{server.url}/v1/admin/requests").status_code == 204
            assert client.get(f"{server.url}/v1/admin/requests").json()["requests"] == []
            assert httpx.delete(f"{server.url}/v1/admin/requests").status_code == 401
    finally:
        server.stop()


def test_a_center_read_that_waits_answers_at_the_count_or_change(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        device = register_device(server)
        headers = {"authorization": f"Bearer {device['secret']}"}
        with httpx.Client(headers=headers, timeout=30) as client:
            pushes = later(0.5, lambda: [push(server, device, f"n{index}") for index in range(3)])
            asked = time.monotonic()
            answer = client.get(f"{server.url}/v1/devices/{device['token']}/center", params={"wait": 60, "notifications": 3})
            pushes.join(10)
            assert answer.headers["huddle-wait"] == "met"
            assert time.monotonic() - asked < WOKEN_WITHIN
            assert sum(len(group["notifications"]) for group in answer.json()["groups"]) == 3
            changed = client.get(f"{server.url}/v1/devices/{device['token']}/center", params={"wait": 1, "change": 999})
            assert changed.headers["huddle-wait"] == "timed-out"
            unsaid = client.get(f"{server.url}/v1/devices/{device['token']}/center", params={"wait": 1})
            assert unsaid.status_code == 400 and "notifications=<count> or change=<number>" in unsaid.text
    finally:
        server.stop()


def test_huddle_requests_wait_is_an_assertion_a_shell_step_can_make(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        device = register_device(server)
        push(server, device, "before")
        base = [str(HUDDLE), "requests", "--server", server.url, "--admin-token", ADMIN_TOKEN]
        # --clear forgets the push before; the two that come while it waits are what it reports.
        pushes = later(0.5, lambda: (push(server, device, "one"), push(server, device, "two")))
        met = subprocess.run([*base, "--clear", "--wait", "--count", "2", "--device", device["token"], "--status", "200", "--timeout", "20"],
                             capture_output=True, text=True, timeout=60)
        pushes.join(10)
        assert met.returncode == 0, met.stderr
        assert len(met.stdout.strip().splitlines()) == 2, met.stdout
        unmet = subprocess.run([*base, "--wait", "--count", "3", "--reason", "BadDeviceToken", "--timeout", "1"],
                               capture_output=True, text=True, timeout=60)
        assert unmet.returncode == 1
        assert unmet.stderr == "huddle requests: 0 of the 3 requests waited for (reason BadDeviceToken) came within 1 s\n"
    finally:
        server.stop()


def test_the_admin_can_remove_every_device(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        devices = [register_device(server) for _ in range(3)]
        answer = httpx.delete(f"{server.url}/v1/admin/devices", headers=ADMIN)
        assert answer.status_code == 200 and answer.json() == {"removed": 3}
        for device in devices:
            assert push(server, device).json()["reason"] == "Unregistered"
        assert httpx.delete(f"{server.url}/v1/admin/devices").status_code == 401
        assert httpx.delete(f"{server.url}/v1/admin/devices", headers=ADMIN).json() == {"removed": 0}
    finally:
        server.stop()


def test_waits_count_among_the_live_streams_so_they_are_bounded(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development", "--max-streams-per-device", "1"))
    try:
        device = register_device(server)
        headers = {"authorization": f"Bearer {device['secret']}"}
        with httpx.Client(headers=headers, timeout=30) as client:
            with client.stream("GET", f"{server.url}/v1/devices/{device['token']}/stream") as stream:
                assert stream.status_code == 200
                # The device's one stream is taken: a read that would wait is refused at once, as a stream is.
                refused = client.get(f"{server.url}/v1/devices/{device['token']}/center", params={"wait": 30, "notifications": 1})
                assert refused.status_code == 429, refused.text
                assert "max-streams-per-device" in refused.text
    finally:
        server.stop()
