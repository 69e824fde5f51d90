"""The huddle-pytest plugin (clients/python), used as a back-end team would use it: its fixtures give each test
a clean server, and its assertions wait for what they check."""

import os
import subprocess
import sys
import textwrap

import pytest

from huddle_pytest import Huddle
from huddle_pytest.client import WaitTimedOut

CATEGORIES = [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]


def payload(title, body):
    return {"aps": {"alert": {"title": title, "body": body, "summary-arg": title}, "thread-id": "team", "category": "msg"}}


def test_a_push_is_waited_for_and_read_back_grouped(huddle):
    phone = huddle.device(topic="com.example.chat", categories=CATEGORIES)
    for title, body in [("Teja", "Pizza?"), ("Kritarth", "Yes!")]:
        assert huddle.push(phone, payload(title, body)).status_code == 200
    requests = huddle.requests(wait=10, count=2, device=phone.token, status=200, push_type="alert")
    assert [request["answer"]["status"] for request in requests] == [200, 200]
    assert phone.summaries(wait=10, notifications=2) == ["1 more messages from Teja"]


def test_each_test_starts_from_a_clean_server(huddle_server):
    # What the fixture does before each test, done twice here, so that the check does not lean on test order.
    url, token = huddle_server
    dirty = Huddle(url, token)
    try:
        dirty.reset()
        assert dirty.push(dirty.device(), payload("Teja", "left behind")).status_code == 200
        assert len(dirty.requests()) == 1
        clean = Huddle(url, token)
        try:
            clean.reset()
            assert clean.requests() == []
            assert clean.http.delete("/v1/admin/devices", headers={"authorization": f"Bearer {token}"}).json() == {"removed": 0}
        finally:
            clean.close()
    finally:
        dirty.close()


def test_what_does_not_come_fails_the_wait_with_what_did(huddle, huddle_device):
    assert huddle.push(huddle_device, payload("Teja", "one")).status_code == 200
    with pytest.raises(WaitTimedOut, match=r"1 of the 2 requests waited for .* came within 1 s"):
        huddle.requests(wait=1, count=2, device=huddle_device.token)
    with pytest.raises(WaitTimedOut):
        huddle_device.center(wait=1, notifications=5)


def test_a_server_already_running_is_used_through_its_url(huddle_server):
    url, token = huddle_server
    client = Huddle(url, token, key_id="XYZ987WVUT")
    try:
        phone = client.device()
        assert client.push(phone, payload("Teja", "hi")).status_code == 200
        assert len(client.requests(wait=5, count=1, device=phone.token)) == 1
    finally:
        client.close()


def test_fcm_messages_are_sent_with_googles_sdk_and_waited_for(huddle):
    """Issue 42: the plugin gives a service account and Android devices; Google's Admin SDK sends, the waits wait."""
    import uuid

    import firebase_admin
    from firebase_admin import credentials, messaging

    messaging._MessagingService.FCM_URL = huddle.fcm_url()
    app = firebase_admin.initialize_app(credentials.Certificate(huddle.service_account()), name=f"plugin-{uuid.uuid4()}")
    try:
        pixel = huddle.android_device(channels=[{"id": "chat", "name": "Chat", "importance": "high"}])
        iphone = huddle.device(topic="com.example.chat", categories=CATEGORIES)
        for device in (pixel, iphone):
            messaging.send(messaging.Message(token=device.fcm_token, notification=messaging.Notification(title="Teja", body="Pizza?")), app=app)
        shade = pixel.center(wait=10, notifications=1)
        assert [entry["title"] for entry in shade["entries"]] == ["Teja"]
        assert [n["title"] for group in iphone.center(wait=10, notifications=1)["groups"] for n in group["notifications"]] == ["Teja"]
        assert len(huddle.requests(wait=5, count=1, device=pixel.token, status=200)) == 1
    finally:
        firebase_admin.delete_app(app)


def test_the_firebase_app_fixture_sends_to_the_tests_server_with_the_default_app(huddle, huddle_firebase_app):
    """Issue 55: code that sends with the default app (no `app=`) reaches the test's server, topics included."""
    import firebase_admin
    from firebase_admin import messaging

    assert firebase_admin.get_app() is huddle_firebase_app
    pixel = huddle.android_device(channels=[{"id": "chat", "name": "Chat", "importance": "high"}])
    messaging.send(messaging.Message(token=pixel.fcm_token, notification=messaging.Notification(title="Teja", body="Pizza?")))
    assert messaging.subscribe_to_topic([pixel.fcm_token], "news").success_count == 1
    messaging.send(messaging.Message(topic="news", notification=messaging.Notification(title="Headline", body="Read all about it")))
    shade = pixel.center(wait=10, notifications=2)
    assert sorted(entry["title"] for entry in shade["entries"]) == ["Headline", "Teja"]


# Two tests of a project's own, each with the fixture, run by a pytest of their own (its session starts its own
# server through the plugin): the second used to fail with "The default Firebase app already exists". A third checks
# that nothing of theirs is left behind.
TWO_TESTS_WITH_A_FIREBASE_APP = """
import firebase_admin
from firebase_admin import messaging


def send_and_read(huddle, title):
    pixel = huddle.android_device()
    messaging.send(messaging.Message(token=pixel.fcm_token, notification=messaging.Notification(title=title, body="hi")))
    return [entry["title"] for entry in pixel.center(wait=10, notifications=1)["entries"]]


def test_first(huddle, huddle_firebase_app):
    assert send_and_read(huddle, "first") == ["first"]


def test_second(huddle, huddle_firebase_app):
    assert send_and_read(huddle, "second") == ["second"]


def test_no_app_is_left_behind():
    assert firebase_admin._apps == {}
    assert messaging._MessagingService.FCM_URL.startswith("https://fcm.googleapis.com/")
"""


def test_two_tests_in_a_row_each_get_their_own_firebase_app(tmp_path):
    (tmp_path / "test_two.py").write_text(textwrap.dedent(TWO_TESTS_WITH_A_FIREBASE_APP))
    # Outside this suite's folder, so that only the plugin (installed in the environment) gives the fixtures.
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning", "test_two.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout, run.stdout


def test_the_web_push_fixture_gives_a_subscription_that_pywebpush_sends_to(huddle, huddle_web_push):
    from pywebpush import webpush
    message = {"web_push": 8030, "notification": {"title": "Back in stock", "navigate": "https://app.example.com/item/7"}}
    response = webpush(huddle_web_push.info, data=__import__("json").dumps(message), vapid_private_key=huddle_web_push.vapid_private_key,
                       vapid_claims=dict(huddle_web_push.vapid_claims), ttl=60)
    assert response.status_code == 201, response.text
    center = huddle_web_push.device.center(wait=10, notifications=1)
    assert [n["title"] for group in center["groups"] for n in group["notifications"]] == ["Back in stock"]
    [record] = huddle.requests(device=huddle_web_push.device.token)
    assert record["webPush"]["payload"] == message


def test_the_expo_fixture_sends_to_a_device_and_its_receipt_comes_back(huddle, huddle_expo, huddle_device):
    from exponent_server_sdk import PushMessage
    assert huddle_device.expo_token.startswith("ExponentPushToken[")
    ticket = huddle_expo.publish(PushMessage(to=huddle_device.expo_token, title="Order shipped", body="Arrives Friday"))
    ticket.validate_response()
    center = huddle_device.center(wait=10, notifications=1)
    assert [n["title"] for group in center["groups"] for n in group["notifications"]] == ["Order shipped"]
    [receipt] = huddle_expo.check_receipts_multiple([ticket])
    receipt.validate_response()
    [record] = huddle.requests(device=huddle_device.token)
    assert record["expo"]["ticket"] == {"status": "ok", "id": ticket.id}
