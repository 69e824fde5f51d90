"""The huddle-pytest plugin (clients/python), used as a back-end team would use it: its fixtures give each test
a clean server, and its assertions wait for what they check."""

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
