"""Live Activities (issue 28): an app declares its activity types, a provider starts an activity with the
push-to-start token, updates it (a stale timestamp and a content-state that does not decode among them) and
ends it, and the device's activities, events and stream show each step as the iPhone would; the activities
outlive a restart, on SQLite and PostgreSQL. Real clients: httpx over HTTP/2, aioapns over TLS."""

import asyncio
import json
import ssl
import time
import uuid

import aioapns
import aioapns.connection
import httpx
import pytest

import sse
from conftest import KEY_ID, TEAM_ID, TOPIC, Server, read_center, register_device, register_key

LIVE = TOPIC + ".push-type.liveactivity"
# ActivityKit decodes content-state with JSONDecoder's defaults: a Date is seconds since 2001-01-01.
REFERENCE_DATE = 978_307_200
DECLARATION = {"types": [{"name": "DeliveryAttributes", "attributes": {"order": "string"},
                          "contentState": {"eta": "date", "driver": "string?"}}]}


def install(server, device, declaration=DECLARATION):
    response = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}", verify=False,
                         headers={"authorization": f"Bearer {device['secret']}"}, json={"liveActivities": declaration})
    assert response.status_code == 200, response.text
    return response.json()


def activities(server, device):
    response = httpx.get(f"{server.url}/v1/devices/{device['token']}/activities", verify=False,
                         headers={"authorization": f"Bearer {device['secret']}"})
    assert response.status_code == 200, response.text
    return response.json()


def last_event(server, device):
    return httpx.get(f"{server.url}/v1/devices/{device['token']}/events", verify=False, params={"limit": 1},
                     headers={"authorization": f"Bearer {device['secret']}"}).json()["events"][0]


def push(client, server, token, aps, priority=10):
    return client.post(f"{server.url}/3/device/{token}", content=json.dumps({"aps": aps}),
                       headers={"apns-topic": LIVE, "apns-push-type": "liveactivity", "apns-priority": str(priority)})


def eta(minutes_from_now):
    return time.time() + minutes_from_now * 60 - REFERENCE_DATE


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    yield server
    server.stop()


def test_an_activity_is_started_updated_and_ended_as_an_iphone_does(server):
    device = register_device(server)
    app = install(server, device)
    assert app["liveActivities"] == DECLARATION
    tokens = activities(server, device)["pushToStartTokens"]
    assert [(token["app"], token["type"]) for token in tokens] == [(TOPIC, "DeliveryAttributes")]
    start_token = tokens[0]["token"]
    assert len(start_token) == 128 and start_token.startswith(device["token"])
    now = int(time.time())
    stream = sse.DeviceStream(server, device, until="activities").start()

    with httpx.Client(http1=False, http2=True, timeout=30) as client:
        # Started by its push-to-start token, with an alert and a request for its update token.
        answer = push(client, server, start_token, {
            "timestamp": now, "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": "42"},
            "content-state": {"eta": eta(20)}, "alert": {"title": "Order 42", "body": "On its way"}, "input-push-token": 1})
        assert answer.status_code == 200 and answer.http_version == "HTTP/2"
        [activity] = activities(server, device)["activities"]
        assert activity["state"] == "active" and activity["attributes"] == {"order": "42"}
        update_token = activity["updateToken"]
        started = last_event(server, device)["action"]
        assert f"started Live Activity {activity['id']} (DeliveryAttributes)" in started
        assert f"the app reports its update token {update_token}" in started and "its alert lit the screen (Order 42: On its way)" in started
        # The alert lit the screen; it is not a notification in the center.
        assert read_center(server, device)["groups"] == []
        received = stream.join()
        assert received[-1].name == "activities" and received[-1].json()["activities"][0]["id"] == activity["id"]

        # An update no newer than the activity is ignored, and said to be.
        assert push(client, server, update_token, {"timestamp": now, "event": "update", "content-state": {"eta": eta(10)}}).status_code == 200
        assert "ignored: timestamp" in last_event(server, device)["action"] and "is not newer" in last_event(server, device)["action"]
        # A content-state that does not decode into the declared type is dropped, with what is missing.
        assert push(client, server, update_token, {"timestamp": now + 1, "event": "update", "content-state": {"driver": "Ana"}}).status_code == 200
        assert last_event(server, device)["action"] == "dropped: content-state has no `eta`"
        assert activities(server, device)["activities"][0]["contentState"] == activity["contentState"]
        # A good update replaces the content state; an ETA sent in seconds since 1970 decodes 31 years late, and a note says so.
        assert push(client, server, update_token, {"timestamp": now + 2, "event": "update",
                                                   "content-state": {"eta": eta(5), "driver": "Ana"}}).status_code == 200
        assert last_event(server, device)["action"] == f"updated Live Activity {activity['id']}"
        assert activities(server, device)["activities"][0]["contentState"]["driver"] == "Ana"
        assert push(client, server, update_token, {"timestamp": now + 3, "event": "update",
                                                   "content-state": {"eta": time.time() + 300}}).status_code == 200
        assert "note: aps.content-state.eta" in last_event(server, device)["action"]

        # Ended without a dismissal date: on the Lock Screen for up to four hours more.
        assert push(client, server, update_token, {"timestamp": now + 4, "event": "end", "content-state": {"eta": eta(0)}}).status_code == 200
        [ended] = activities(server, device)["activities"]
        assert ended["state"] == "ended" and "stays on the Lock Screen until" in last_event(server, device)["action"]
        # An ended activity takes nothing more.
        assert push(client, server, update_token, {"timestamp": now + 5, "event": "update", "content-state": {"eta": eta(1)}}).status_code == 200
        assert last_event(server, device)["action"] == "ignored: the activity has ended and takes no more pushes"

        # A second one, ended with a dismissal date in the past: removed at once.
        assert push(client, server, start_token, {
            "timestamp": now + 6, "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": "43"},
            "content-state": {"eta": eta(30)}, "alert": {"title": "Order 43", "body": "Packed"}}).status_code == 200
        second = next(a for a in activities(server, device)["activities"] if a["attributes"] == {"order": "43"})
        assert push(client, server, second["updateToken"], {"timestamp": now + 7, "event": "end", "dismissal-date": now - 60,
                                                            "content-state": {"eta": eta(0)}}).status_code == 200
        assert "removed it at once" in last_event(server, device)["action"]
        assert [a["attributes"]["order"] for a in activities(server, device)["activities"]] == ["42"]

        # Where Live Activity pushes do not go: the device's own token, or a start for an undeclared type.
        wrong = push(client, server, device["token"], {"timestamp": now, "event": "update"})
        assert wrong.status_code == 400 and wrong.json()["reason"] == "DeviceTokenNotForTopic"
        assert push(client, server, start_token, {"timestamp": now + 8, "event": "start", "attributes-type": "Pizza",
                                                  "attributes": {}, "content-state": {}}).status_code == 200
        assert last_event(server, device)["action"].startswith(
            "dropped: attributes-type Pizza is not DeliveryAttributes, the type this push-to-start token starts")
        # A token the device never gave out.
        assert push(client, server, device["token"] + "0" * 64, {"timestamp": now + 8, "event": "update",
                                                                 "content-state": {"eta": eta(1)}}).status_code == 200
        assert last_event(server, device)["action"] == "ignored: no activity on the device has this update token"
        # Priority 1 is not for Live Activities.
        assert push(client, server, update_token, {"timestamp": now + 9, "event": "update"}, priority=1).json()["reason"] == "BadPriority"

    # The person removes the ended one from the Lock Screen.
    removed = httpx.delete(f"{server.url}/v1/devices/{device['token']}/activities/{ended['id']}",
                           headers={"authorization": f"Bearer {device['secret']}"})
    assert removed.status_code == 204 and activities(server, device)["activities"] == []


def test_the_priority_10_budget_throttles_and_5_does_not(server):
    device = register_device(server)
    install(server, device)
    start_token = activities(server, device)["pushToStartTokens"][0]["token"]
    now = int(time.time())
    with httpx.Client() as client:
        push(client, server, start_token, {"timestamp": now, "event": "start", "attributes-type": "DeliveryAttributes",
                                           "attributes": {"order": "1"}, "content-state": {"eta": eta(9)}})
        token = activities(server, device)["activities"][0]["updateToken"]
        actions = []
        for index in range(1, 13):
            assert push(client, server, token, {"timestamp": now + index, "event": "update", "content-state": {"eta": eta(9)}}).status_code == 200
            actions.append(last_event(server, device)["action"])
        assert actions.count("throttled: the activity used 10 of its 10 priority-10 updates this hour; "
                             "send apns-priority 5, or declare NSSupportsLiveActivitiesFrequentUpdates") == 2
        push(client, server, token, {"timestamp": now + 20, "event": "update", "content-state": {"eta": eta(9)}}, priority=5)
        assert last_event(server, device)["action"].startswith("updated")


def test_racing_starts_on_one_device_all_land_within_the_limit(server):
    device = register_device(server)
    install(server, device)
    start_token = activities(server, device)["pushToStartTokens"][0]["token"]
    now = int(time.time())

    def start(index):
        with httpx.Client() as client:
            return push(client, server, start_token, {
                "timestamp": now, "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": str(index)},
                "content-state": {"eta": eta(5)}}).status_code

    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(start, range(8))) == [200] * 8
    # Five live activities per app, as the device allows; the other starts are dropped, and said to be.
    assert len(activities(server, device)["activities"]) == 5
    events = httpx.get(f"{server.url}/v1/devices/{device['token']}/events", headers={"authorization": f"Bearer {device['secret']}"}).json()["events"]
    assert sum("already has 5 activities running" in event["action"] for event in events) == 3


def test_activities_outlive_a_restart(tmp_path, database):
    server = Server(tmp_path, tls=False, database=database, extra=("--development",))
    try:
        device = register_device(server)
        install(server, device)
        start_token = activities(server, device)["pushToStartTokens"][0]["token"]
        with httpx.Client() as client:
            assert push(client, server, start_token, {
                "timestamp": int(time.time()), "event": "start", "attributes-type": "DeliveryAttributes",
                "attributes": {"order": "7"}, "content-state": {"eta": eta(15)}}).status_code == 200
        before = activities(server, device)
        server.stop()
        server.start()
        assert activities(server, device) == before and len(before["activities"]) == 1
    finally:
        server.stop()


def test_aioapns_starts_an_activity_over_tls(tls_server, keys):
    device = register_device(tls_server)
    install(tls_server, device)
    start_token = activities(tls_server, device)["pushToStartTokens"][0]["token"]
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = "localhost"
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = tls_server.port

    async def send():
        apns = aioapns.APNs(key=keys[1], key_id=KEY_ID, team_id=TEAM_ID, topic=LIVE, use_sandbox=False,
                            ssl_context=ssl.create_default_context(cafile=str(tls_server.cert)))
        return await apns.send_notification(aioapns.NotificationRequest(
            device_token=start_token, notification_id=str(uuid.uuid4()), push_type=aioapns.PushType.LIVEACTIVITY,
            message={"aps": {"timestamp": int(time.time()), "event": "start", "attributes-type": "DeliveryAttributes",
                             "attributes": {"order": "9"}, "content-state": {"eta": eta(12)},
                             "alert": {"title": "Order 9", "body": "Confirmed"}}}))

    result = asyncio.run(send())
    assert result.is_successful, result.description
    assert [a["attributes"] for a in activities(tls_server, device)["activities"]] == [{"order": "9"}]


def test_two_servers_sharing_postgresql_apply_one_device_s_activities_in_turn(tmp_path, postgres_database):
    """Pushes to one activity through two servers: each applies them in the database's transaction, under the
    device's lock, so none is lost and both servers show the same activity; the other server's stream hears it."""
    first = Server(str(tmp_path), tls=False, database=postgres_database, extra=("--development",))
    second = Server(str(tmp_path), tls=False, database=postgres_database, extra=("--development",))
    try:
        device = register_device(first)
        install(first, device)
        start_token = activities(second, device)["pushToStartTokens"][0]["token"]
        now = int(time.time())
        with httpx.Client() as client:
            assert push(client, second, start_token, {
                "timestamp": now, "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": "5"},
                "content-state": {"eta": eta(30)}, "alert": {"title": "Order 5", "body": "Confirmed"}}).status_code == 200
            token = activities(second, device)["activities"][0]["updateToken"]

            def update(index):
                server = first if index % 2 else second
                with httpx.Client() as own:
                    return push(own, server, token, {"timestamp": now + index, "event": "update",
                                                     "content-state": {"eta": eta(30 - index), "driver": f"d{index}"}}, priority=5).status_code

            import concurrent.futures
            with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
                assert list(pool.map(update, range(1, 21))) == [200] * 20
        # Whatever order they committed in, the newest timestamp is what both servers show, and every push is an event.
        # Each server knows the changes it committed; the other follows them through PostgreSQL's notices, so each
        # waits (without sleeping) for the newest change either made.
        from test_broadcasts import wait_for_change
        last = max(httpx.get(f"{server.url}/v1/devices/{device['token']}/events",
                             headers={"authorization": f"Bearer {device['secret']}"}).json()["events"][0]["change"] for server in (first, second))
        for server in (first, second):
            assert wait_for_change(server, device, last) == "met"
            assert [a["contentState"].get("driver") for a in activities(server, device)["activities"]] == ["d20"]
            events = httpx.get(f"{server.url}/v1/devices/{device['token']}/events", headers={"authorization": f"Bearer {device['secret']}"}).json()["events"]
            assert len(events) == 21
    finally:
        first.stop()
        second.stop()
