"""Issue 43 on a real `huddle serve`: a device's scheduled summary holds pushes decided in their commit and brings
them as one change, a Focus silences what it does not allow, the inspector says what the settings did, the Lock
Screen's layout shows in the center's JSON and the page, and all of it outlives a restart."""
import json
import threading

import httpx
import pytest

from conftest import ADMIN_TOKEN, TOPIC, Server
from sse import events

OTHER = "com.example.other"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def server(tmp_path):
    server = Server(str(tmp_path), tls=False, extra=["--development"])
    yield server
    server.stop()


def set_up(server):
    """A device with a summary at 08:00 UTC holding TOPIC (which may send Time Sensitive notifications), OTHER outside
    it, and the Work Focus on, allowing no app."""
    device = httpx.post(f"{server.url}/v1/devices", json={"name": "Summary"}).json()
    auth = {"authorization": f"Bearer {device['secret']}"}
    base = f"{server.url}/v1/devices/{device['token']}"
    saved = httpx.put(f"{base}/apps/{TOPIC}", headers=auth,
                      json={"name": "Podcasts", "settings": {"scheduledSummary": True}, "capabilities": ["timeSensitive"]})
    assert saved.status_code == 200 and saved.json()["capabilities"] == ["timeSensitive"], saved.text
    assert httpx.put(f"{base}/apps/{OTHER}", headers=auth, json={"name": "Mail"}).status_code == 200
    settings = httpx.patch(f"{base}/settings", headers=auth,
                           json={"summary": {"enabled": True, "times": ["08:00"]}, "focus": {"name": "Work", "on": True}})
    assert settings.status_code == 200, settings.text
    return device, auth, base


def push(server, device, identifier, topic=TOPIC, level=None, relevance=None):
    aps = {"alert": {"title": identifier.capitalize(), "body": f"About {identifier}"}}
    if level:
        aps["interruption-level"] = level
    if relevance is not None:
        aps["relevance-score"] = relevance
    response = httpx.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": topic, "apns-collapse-id": identifier},
                          content=json.dumps({"aps": aps}))
    assert response.status_code == 200, response.text


def center(base, auth, **query):
    response = httpx.get(f"{base}/center", headers=auth, params=query)
    assert response.status_code == 200, response.text
    return response.json()


def notification_ids(rendered):
    return sorted(notification["id"] for group in rendered["groups"] for notification in group["notifications"])


def test_a_summary_holds_its_pushes_until_it_comes_as_one_change_and_a_focus_silences(server):
    device, auth, base = set_up(server)
    # A stream open before the pushes: the summary's arrival is one `center` event.
    received = []
    opened = threading.Event()

    def listen():
        with httpx.stream("GET", f"{base}/stream", headers=auth, timeout=30) as stream:
            for event in events(stream):
                received.append(event)
                opened.set()
                if event.name == "center" and event.json()["center"].get("device", {}).get("summary"):
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(10)

    push(server, device, "interview", relevance=0.3)
    push(server, device, "trailer", level="passive", relevance=0.9)
    push(server, device, "recap")
    push(server, device, "live", level="time-sensitive")
    push(server, device, "invoice", topic=OTHER)

    before = center(base, auth)
    # Held ones are not in the center; the Time Sensitive one broke through both; the other app's was silenced.
    assert notification_ids(before) == ["invoice", "live"], before
    silenced = {n["id"]: n.get("silencedBy") for g in before["groups"] for n in g["notifications"]}
    assert silenced == {"invoice": "Work", "live": None}, silenced
    device_part = before["device"]
    assert device_part["focus"] == {"name": "Work", "active": True}
    assert sorted(held["id"] for held in device_part["held"]) == ["interview", "recap", "trailer"]
    assert {held["until"][11:16] for held in device_part["held"]} == {"08:00"}
    assert device_part["summary"] is None

    # The inspector says what the settings did with each push.
    records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"limit": 10}).json()["requests"]
    arrivals = {record["notification"]["identifier"]: record["notification"].get("arrival") for record in records if "notification" in record}
    assert arrivals["trailer"] == "held for the 08:00 summary", arrivals
    assert arrivals["invoice"] == "silenced by the Work Focus" and arrivals["live"] is None, arrivals
    # And the device's events list it, as the page's background activity does.
    listed = httpx.get(f"{base}/events", headers=auth).json()
    actions = {event["apnsID"]: event["action"] for event in (listed["events"] if isinstance(listed, dict) else listed)}
    assert sorted(actions.values()) == ["held for the 08:00 summary"] * 3 + ["silenced by the Work Focus"], actions

    delivered = httpx.post(f"{base}/summary", headers=auth, params={"languages": "de"})
    assert delivered.status_code == 200, delivered.text
    [summary] = delivered.json()["summaries"]
    assert summary["title"] == "Deine Zusammenfassung am Morgen" and summary["count"] == 3
    assert summary["featured"][0] == {"app": TOPIC, "id": "trailer"}, summary
    assert summary["apps"] == [{"app": TOPIC, "ids": ["trailer", "interview", "recap"]}]
    # Nothing more is held: a second request delivers nothing.
    assert httpx.post(f"{base}/summary", headers=auth).json() == {"summaries": []}

    after = center(base, auth)
    assert notification_ids(after) == ["interview", "invoice", "live", "recap", "trailer"]
    assert after["device"]["held"] == [] and after["device"]["summary"]["count"] == 3

    listener.join(10)
    summary_events = [event for event in received if event.name == "center" and event.json()["center"].get("device", {}).get("summary")]
    assert len(summary_events) == 1, received
    assert notification_ids(summary_events[0].json()["center"]) == ["interview", "invoice", "live", "recap", "trailer"]

    # Stored, not remembered: a restarted server shows the same.
    server.stop()
    server.start()
    again = center(base, auth)
    assert notification_ids(again) == notification_ids(after) and again["device"]["summary"] == after["device"]["summary"]
    assert {n["id"]: n.get("silencedBy") for g in again["groups"] for n in g["notifications"]}["invoice"] == "Work"


def test_turning_the_summary_off_brings_what_it_held_and_the_lock_screen_follows_its_layout(server):
    device, auth, base = set_up(server)
    push(server, device, "one")
    push(server, device, "two")
    push(server, device, "three", topic=OTHER)
    assert notification_ids(center(base, auth)) == ["three"]
    assert httpx.patch(f"{base}/settings", headers=auth, json={"summary": {"enabled": False}}).status_code == 200
    rendered = center(base, auth)
    assert notification_ids(rendered) == ["one", "three", "two"] and rendered["device"]["held"] == []
    for layout, cards, behind in [("count", [], 0), ("stack", 1, 1), ("list", 2, 0)]:
        assert httpx.patch(f"{base}/settings", headers=auth, json={"lockScreen": layout}).status_code == 200
        lock_screen = center(base, auth, locked="true")["device"]["lockScreen"]
        assert lock_screen["layout"] == layout and lock_screen["notificationCount"] == 3, lock_screen
        assert (len(lock_screen["cards"]) if isinstance(cards, int) else lock_screen["cards"]) == cards and lock_screen["behind"] == behind
        assert center(base, auth)["device"]["lockScreen"] is None


def test_a_device_without_settings_renders_as_before(server):
    device = httpx.post(f"{server.url}/v1/devices", json={"name": "Plain"}).json()
    auth = {"authorization": f"Bearer {device['secret']}"}
    base = f"{server.url}/v1/devices/{device['token']}"
    assert httpx.put(f"{base}/apps/{TOPIC}", headers=auth, json={}).status_code == 200
    push(server, device, "hello", level="passive")
    rendered = center(base, auth)
    assert "device" not in rendered and notification_ids(rendered) == ["hello"]
    assert "silencedBy" not in rendered["groups"][0]["notifications"][0]
