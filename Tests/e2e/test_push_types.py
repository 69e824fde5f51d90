"""Every push type does on Huddle what it does on an iPhone (issue 28): an alert shows in the center; a push
that shows nothing (background, voip, widgets, …; Live Activities have test_live_activities.py) is recorded as a device event saying what iOS did with it,
visible in the device API, its live stream and the request inspector, and kept across a restart."""

import json
import uuid

import httpx
import pytest

from conftest import ADMIN_TOKEN, TOPIC, Server, read_center, register_device
import sse

# Each type with the topic suffix Apple asks for, a priority it takes, and a payload of its kind.
TYPES = {
    "background": ("", 5, {"aps": {"content-available": 1}, "sync": "inbox"}),
    "voip": (".voip", 10, {"aps": {}, "caller": "Teja"}),
    "pushtotalk": (".voip-ptt", 10, {"aps": {}, "speaker": "Teja"}),
    "location": (".location-query", 10, {"aps": {}}),
    "fileprovider": (".pushkit.fileprovider", 10, {"aps": {}, "container": "docs"}),
    "complication": (".complication", 10, {"aps": {}, "score": "2-1"}),
    "widgets": (".push-type.widgets", 10, {"aps": {"content-changed": True}}),
    "controls": (".push-type.controls", 10, {"aps": {"content-changed": True}}),
    "mdm": ("", 10, {"aps": {}, "mdm": "check-in"}),
}


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    yield server
    server.stop()


def push(server, device, push_type, suffix="", priority=None, payload=None, apns_id=None):
    headers = {"apns-topic": TOPIC + suffix, "apns-push-type": push_type, "apns-id": apns_id or str(uuid.uuid4())}
    if priority is not None:
        headers["apns-priority"] = str(priority)
    return httpx.post(f"{server.url}/3/device/{device['token']}", headers=headers, content=json.dumps(payload or {}), timeout=30)


def events(server, device, **query):
    response = httpx.get(f"{server.url}/v1/devices/{device['token']}/events", params=query,
                         headers={"authorization": f"Bearer {device['secret']}"})
    assert response.status_code == 200, response.text
    return response.json()["events"]


def test_each_push_type_that_shows_nothing_is_an_event_saying_what_ios_did(server):
    device = register_device(server)
    sent = {}
    for push_type, (suffix, priority, payload) in TYPES.items():
        apns_id = str(uuid.uuid4())
        answer = push(server, device, push_type, suffix, priority, payload, apns_id)
        assert answer.status_code == 200, (push_type, answer.text)
        sent[push_type] = (apns_id, payload)
    recorded = events(server, device)
    assert [event["pushType"] for event in recorded] == list(reversed(TYPES))
    for event in recorded:
        apns_id, payload = sent[event["pushType"]]
        assert event["apnsID"] == apns_id and event["payload"] == payload and event["app"] == TOPIC
        assert event["action"]
    actions = {event["pushType"]: event["action"] for event in recorded}
    assert "woke the app in the background" in actions["background"]
    assert "CallKit" in actions["voip"]
    assert "widgets" in actions["widgets"] and "Control Center" in actions["controls"]
    assert [event["pushType"] for event in events(server, device, limit=2)] == ["mdm", "controls"]
    # None of them is a notification.
    assert read_center(server, device)["groups"] == []
    # The inspector says what each did.
    records = httpx.get(f"{server.url}/v1/admin/requests", headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
                        params={"push-type": "voip"}).json()["requests"]
    assert records[0]["event"] == {"app": TOPIC, "action": actions["voip"]}


def test_an_alert_with_nothing_to_show_is_an_event_too(server):
    device = register_device(server)
    assert push(server, device, "alert", payload={"aps": {"badge": 3}}).status_code == 200
    assert push(server, device, "alert", payload={"aps": {"content-available": 1}}).status_code == 200
    assert push(server, device, "alert", payload={"aps": {"alert": {"title": "Teja", "body": "hi"}}}).status_code == 200
    assert [event["action"] for event in events(server, device)] == [
        "woke the app in the background to fetch new content", "set the app icon's badge to 3, and showed nothing"]
    assert sum(len(group["notifications"]) for group in read_center(server, device)["groups"]) == 1


@pytest.mark.parametrize("push_type, suffix, priority, reason", [
    ("background", "", 10, "BadPriority"),
    ("liveactivity", ".push-type.liveactivity", 1, "BadPriority"),
    ("controls", "", 10, "TopicDisallowed"),
    ("controls", ".push-type.widgets", 10, "TopicDisallowed"),
    ("voip", "", 10, "TopicDisallowed"),
])
def test_what_apns_checks_for_each_type_is_checked(server, push_type, suffix, priority, reason):
    device = register_device(server)
    answer = push(server, device, push_type, suffix, priority, {"aps": {}})
    assert answer.status_code == 400 and answer.json()["reason"] == reason
    assert events(server, device) == []


def test_events_come_live_on_the_device_stream(server):
    device = register_device(server)
    stream = sse.DeviceStream(server, device, until="device-event").start()
    assert stream.received[0].name == "center"
    assert push(server, device, "widgets", ".push-type.widgets", payload={"aps": {"content-changed": True}}).status_code == 200
    event = stream.join()[-1]
    assert event.name == "device-event"
    data = event.json()
    assert data["pushType"] == "widgets" and event.id == str(data["change"])


def test_events_are_kept_across_a_restart(tmp_path, database):
    server = Server(tmp_path, tls=False, database=database, extra=("--development",))
    try:
        device = register_device(server)
        for push_type in ("voip", "background"):
            suffix, priority, payload = TYPES[push_type]
            assert push(server, device, push_type, suffix, priority, payload).status_code == 200
        before = events(server, device)
        server.stop()
        server.start()
        assert events(server, device) == before
        assert [event["pushType"] for event in before] == ["background", "voip"]
    finally:
        server.stop()
