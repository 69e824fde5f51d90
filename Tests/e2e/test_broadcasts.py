"""Broadcast channels (issue 29, item 1): the channel-management API on Apple's paths and hosts, with its
reasons; broadcasts that reach every Live Activity listening on a channel, on every device, as each device's
own change; the storage policy (a later subscriber gets the stored broadcast, or nothing); and one broadcast
to 1,000 activities, on one server and on two servers sharing PostgreSQL. Real clients: httpx over HTTP/2."""

import concurrent.futures
import json
import re
import time
import uuid

import httpx
import pytest

from conftest import ADMIN_TOKEN, KEY_ID, TEAM_ID, TOPIC, Server, register_device, register_key, signing_key
from jwt_tokens import token
from test_live_activities import DECLARATION, LIVE, activities, eta, install

SANDBOX_CHANNELS = "api-manage-broadcast.sandbox.push.apple.com"
PRODUCTION_CHANNELS = "api-manage-broadcast.push.apple.com"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


def create_channel(client, server, policy=1, host=SANDBOX_CHANNELS, jwt=None, app=TOPIC, body=None, request_id=None):
    headers = {"host": host} | ({"authorization": f"bearer {jwt}"} if jwt else {}) | ({"apns-request-id": request_id} if request_id else {})
    return client.post(f"{server.url}/1/apps/{app}/channels", headers=headers,
                       content=json.dumps(body if body is not None else {"message-storage-policy": policy, "push-type": "LiveActivity"}))


def broadcast(client, server, channel, aps, priority=5, expiration=None, app=TOPIC, push_type="liveactivity", host=None):
    headers = {"apns-channel-id": channel, "apns-push-type": push_type, "apns-priority": str(priority)}
    headers |= ({"apns-expiration": str(expiration)} if expiration is not None else {}) | ({"host": host} if host else {})
    return client.post(f"{server.url}/4/broadcasts/apps/{app}", headers=headers, content=json.dumps({"aps": aps}))


def request_activity(server, device, order, push_type):
    answer = httpx.post(f"{server.url}/v1/devices/{device['token']}/activities", headers={"authorization": f"Bearer {device['secret']}"},
                        json={"app": TOPIC, "type": "DeliveryAttributes", "attributes": {"order": order},
                              "contentState": {"eta": eta(30)}, "pushType": push_type})
    assert answer.status_code == 201, answer.text
    return answer.json()


def events(server, device):
    return httpx.get(f"{server.url}/v1/devices/{device['token']}/events",
                     headers={"authorization": f"Bearer {device['secret']}"}).json()["events"]


def wait_for_change(server, device, number, seconds=10):
    """Reads the device's center once it has applied change `number`; says whether it did in time."""
    answer = httpx.get(f"{server.url}/v1/devices/{device['token']}/center", params={"wait": seconds, "change": number},
                       headers={"authorization": f"Bearer {device['secret']}"}, timeout=seconds + 10)
    return answer.headers["huddle-wait"]


def reason(answer):
    return answer.status_code, answer.json()["reason"]


def test_channels_are_created_read_listed_and_deleted_on_apple_s_paths(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--max-channels-per-app", "3"))
    try:
        _, p8, public = signing_key(tmp_path)
        register_key(server, public)
        jwt = token(p8, KEY_ID, TEAM_ID)
        # APNs reads the provider token of every request (HPACK sends it once per connection).
        signed = {"authorization": f"bearer {jwt}"}
        with httpx.Client(http1=False, http2=True, headers=signed) as client:
            request_id = str(uuid.uuid4())
            created = create_channel(client, server, request_id=request_id)
            assert created.status_code == 201 and created.http_version == "HTTP/2", created.text
            assert created.headers["apns-request-id"] == request_id
            channel = created.headers["apns-channel-id"]
            read = client.get(f"{server.url}/1/apps/{TOPIC}/channels", headers={"host": SANDBOX_CHANNELS, "apns-channel-id": channel})
            assert read.status_code == 200 and read.json() == {"message-storage-policy": 1, "push-type": "LiveActivity"}
            assert uuid.UUID(read.headers["apns-request-id"])
            listed = client.get(f"{server.url}/1/apps/{TOPIC}/all-channels", headers={"host": SANDBOX_CHANNELS})
            assert listed.json() == {"channels": [channel]}
            # Channels are per environment: production's host knows none of development's.
            production = client.get(f"{server.url}/1/apps/{TOPIC}/all-channels", headers={"host": PRODUCTION_CHANNELS})
            assert production.json() == {"channels": []}
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/channels",
                                     headers={"host": PRODUCTION_CHANNELS, "apns-channel-id": channel})) == (400, "ChannelNotRegistered")

            # Apple's reasons for what is wrong.
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/channels")) == (400, "MissingChannelId")
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/channels", headers={"apns-channel-id": "not base64!"})) == (400, "BadChannelId")
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/channels", headers={"apns-channel-id": "AAAAAAAAAAAAAAAAAAAAAA=="})) \
                == (400, "ChannelNotRegistered")
            assert reason(create_channel(client, server, body={"message-storage-policy": 0})) == (400, "MissingPushType")
            assert reason(create_channel(client, server, body={"message-storage-policy": 0, "push-type": "Alert"})) == (400, "InvalidPushType")
            bad_policy = create_channel(client, server, body={"message-storage-policy": 2, "push-type": "LiveActivity"})
            assert reason(bad_policy) == (400, "BadPayload") and "message-storage-policy" in bad_policy.json()["description"]
            assert reason(client.put(f"{server.url}/1/apps/{TOPIC}/channels")) == (405, "MethodNotAllowed")
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/chanels")) == (404, "BadPath")
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/channels", headers={"apns-request-id": "nope"})) == (400, "BadMessageId")

            # Deleted: gone from reads and lists.
            deleted = client.delete(f"{server.url}/1/apps/{TOPIC}/channels", headers={"apns-channel-id": channel})
            assert deleted.status_code == 204
            assert reason(client.get(f"{server.url}/1/apps/{TOPIC}/channels", headers={"apns-channel-id": channel})) == (400, "ChannelNotRegistered")

        # Without a provider token, or with a key for another app, nothing.
        with httpx.Client(http1=False, http2=True) as client:
            assert reason(create_channel(client, server)) == (403, "MissingProviderToken")
        with httpx.Client(http1=False, http2=True) as client:
            other = create_channel(client, server, jwt=jwt, app="com.example.other")
            # As for a push to a topic the key does not serve (apns.md).
            assert reason(other) == (403, "InvalidProviderToken")

        # Ten creations at once against a limit of three: three channels, seven CannotCreateChannelConfig.
        def create(_):
            with httpx.Client(http1=False, http2=True, headers=signed) as own:
                return create_channel(own, server).status_code
        with concurrent.futures.ThreadPoolExecutor(max_workers=10) as pool:
            statuses = sorted(pool.map(create, range(10)))
        assert statuses == [201] * 3 + [400] * 7
        with httpx.Client(http1=False, http2=True, headers=signed) as client:
            full = create_channel(client, server)
            assert reason(full) == (400, "CannotCreateChannelConfig")
            assert len(client.get(f"{server.url}/1/apps/{TOPIC}/all-channels").json()["channels"]) == 3

        # The inspector shows channel requests with their paths and answers.
        records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"limit": 200}).json()["requests"]
        paths = {(r["method"], r["path"], r["answer"]["status"]) for r in records}
        assert ("DELETE", f"/1/apps/{TOPIC}/channels", 204) in paths and ("POST", f"/1/apps/{TOPIC}/channels", 201) in paths
        # Counted as every APNs request is, accepted or refused: 1 + 3 channels created, one deleted, one read, 7 + 1 full.
        metrics = httpx.get(f"{server.url}/metrics").text
        def counted(status, reason):
            found = re.search(r'huddle_provider_requests_total\{(?:status="%s",reason="%s"|reason="%s",status="%s")\} (\d+)'
                              % (status, reason, reason, status), metrics)
            return int(found.group(1)) if found else 0
        assert counted(201, "") == 4 and counted(204, "") == 1 and counted(200, "") >= 1, metrics
        assert counted(400, "CannotCreateChannelConfig") == 8, metrics
    finally:
        server.stop()


def test_a_broadcast_reaches_every_activity_listening_on_its_channel(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        with httpx.Client(http1=False, http2=True) as client:
            stored = create_channel(client, server, policy=1).headers["apns-channel-id"]
            unstored = create_channel(client, server, policy=0).headers["apns-channel-id"]
            first, second, bystander = (register_device(server) for _ in range(3))
            for device in (first, second, bystander):
                install(server, device)
            # One subscribes as the app does (Activity.request with pushType .channel), one by a push-to-start
            # with input-push-channel; the bystander's activity listens on its own token.
            mine = request_activity(server, first, "1", {"channel": stored})
            assert mine["channelID"] == stored and "updateToken" not in mine
            start_token = activities(server, second)["pushToStartTokens"][0]["token"]
            now = int(time.time())
            started = client.post(f"{server.url}/3/device/{start_token}", headers={"apns-topic": LIVE, "apns-push-type": "liveactivity"},
                                  content=json.dumps({"aps": {"timestamp": now, "event": "start", "attributes-type": "DeliveryAttributes",
                                                              "attributes": {"order": "2"}, "content-state": {"eta": eta(30)},
                                                              "alert": {"title": "Order 2", "body": "Confirmed"}, "input-push-channel": stored}}))
            assert started.status_code == 200, started.text
            request_activity(server, bystander, "3", "token")

            sent = broadcast(client, server, stored, {"timestamp": now + 5, "event": "update", "content-state": {"eta": eta(10), "driver": "Ana"}})
            assert sent.status_code == 200, sent.text
            assert uuid.UUID(sent.headers["apns-request-id"]) and "apns-unique-id" in sent.headers
            for device in (first, second):
                [activity] = activities(server, device)["activities"]
                assert activity["contentState"]["driver"] == "Ana"
                assert events(server, device)[0]["action"] == f"broadcast on channel {stored}: updated Live Activity {activity['id']}"
            assert "driver" not in activities(server, bystander)["activities"][0]["contentState"]

            # Stored: an activity that subscribes later starts from the broadcast; unstored: from its own content.
            later = request_activity(server, bystander, "4", {"channel": stored})
            assert later["contentState"]["driver"] == "Ana"
            assert "the broadcast stored on channel" in events(server, bystander)[0]["action"]
            assert broadcast(client, server, unstored, {"timestamp": now + 6, "event": "update",
                                                        "content-state": {"eta": eta(9), "driver": "Bo"}}).status_code == 200
            assert "driver" not in request_activity(server, first, "5", {"channel": unstored})["contentState"]

            # A channel that stores nothing takes no expiration but 0; a broadcast is checked as Apple checks it.
            update = {"timestamp": now + 7, "event": "update", "content-state": {"eta": eta(8)}}
            waiting = broadcast(client, server, unstored, update, expiration=int(time.time()) + 3600)
            assert reason(waiting) == (400, "BadExpirationDate") and "stores no message" in waiting.json()["description"]
            assert broadcast(client, server, unstored, update, expiration=0).status_code == 200
            assert reason(broadcast(client, server, stored, update, push_type="alert")) == (400, "InvalidPushType")
            assert reason(client.post(f"{server.url}/4/broadcasts/apps/{TOPIC}", headers={"apns-channel-id": stored},
                                      content=json.dumps({"aps": update}))) == (400, "MissingPushType")
            assert reason(client.post(f"{server.url}/4/broadcasts/apps/{TOPIC}", headers={"apns-push-type": "liveactivity"},
                                      content=json.dumps({"aps": update}))) == (400, "MissingChannelId")
            assert reason(broadcast(client, server, stored, update, priority=1)) == (400, "BadPriority")
            assert reason(broadcast(client, server, stored, update, app="com.example.other")) == (400, "ChannelNotRegistered")
            assert reason(broadcast(client, server, stored, update, host="api.push.apple.com")) == (400, "ChannelNotRegistered")
            too_large = broadcast(client, server, stored, {"event": "update", "pad": "x" * 6000})
            assert reason(too_large) == (413, "PayloadTooLarge")
            empty = client.post(f"{server.url}/4/broadcasts/apps/{TOPIC}",
                                headers={"apns-channel-id": stored, "apns-push-type": "liveactivity"})
            assert reason(empty) == (400, "PayloadEmpty")
            assert reason(client.get(f"{server.url}/4/broadcasts/apps/{TOPIC}")) == (405, "MethodNotAllowed")

            # An end on the channel ends every listener.
            assert broadcast(client, server, stored, {"timestamp": now + 8, "event": "end", "content-state": {"eta": eta(0)}}).status_code == 200
            assert [a["state"] for a in activities(server, first)["activities"] if a.get("channelID") == stored] == ["ended"]

        # The inspector shows the broadcast and what it reached.
        records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"limit": 100}).json()["requests"]
        first_broadcast = next(r for r in reversed(records) if r["path"] == f"/4/broadcasts/apps/{TOPIC}" and r["answer"]["status"] == 200)
        assert first_broadcast["event"]["action"] == f"broadcast on channel {stored} to the activities of 2 devices"
    finally:
        server.stop()


@pytest.mark.parametrize("servers", ["one server on SQLite", "two servers sharing PostgreSQL"])
def test_one_broadcast_updates_a_thousand_activities_once_each_in_order(tmp_path, servers, request):
    """1,000 activities on 200 devices (five each: an app may have five live at once) listen on one channel; five
    broadcasts sent in turn update each activity once per broadcast, in the order sent."""
    database = request.getfixturevalue("postgres_database") if servers.startswith("two") else None
    first = Server(str(tmp_path), tls=False, database=database, extra=("--development",))
    second = Server(str(tmp_path), tls=False, database=database, extra=("--development",)) if database else first
    try:
        with httpx.Client(http1=False, http2=True) as client:
            channel = create_channel(client, first, policy=0).headers["apns-channel-id"]

        def subscribe(index):
            device = register_device(first)
            install(first, device)
            for order in range(5):
                request_activity(first, device, f"{index}-{order}", {"channel": channel})
            return device
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            devices = list(pool.map(subscribe, range(200)))

        now = int(time.time())
        timings = []
        with httpx.Client(http1=False, http2=True, timeout=120) as client:
            for number in range(1, 6):
                began = time.monotonic()
                answer = broadcast(client, first if number % 2 else second, channel,
                                   {"timestamp": now + number, "event": "update", "content-state": {"eta": eta(30 - number), "driver": f"b{number}"}})
                timings.append(time.monotonic() - began)
                assert answer.status_code == 200, answer.text
        print(f"\n{servers}: a broadcast to 1,000 activities on 200 devices answered in "
              + ", ".join(f"{t * 1000:.0f} ms" for t in timings))
        for server in {first.url: first, second.url: second}.values():
            for device in devices[::20]:
                # The other server follows PostgreSQL's notices: wait (without sleeping) for the change the last broadcast made.
                assert wait_for_change(server, device, events(first, device)[0]["change"]) == "met"
                assert {a["contentState"].get("driver") for a in activities(server, device)["activities"]} == {"b5"}
        for device in devices:
            broadcasts = [e for e in events(first, device) if e["action"].startswith("broadcast on channel")]
            # Newest first: each broadcast once, each of the device's five activities updated by each.
            assert [e["payload"]["aps"]["content-state"]["driver"] for e in broadcasts] == ["b5", "b4", "b3", "b2", "b1"]
            assert all(e["action"].count("updated Live Activity") == 5 for e in broadcasts)
    finally:
        first.stop()
        if second is not first:
            second.stop()


def test_activities_subscribing_while_broadcasts_are_sent_all_end_with_the_last(tmp_path):
    """Subscriptions racing a run of broadcasts on a channel that stores its latest: each new activity either is
    found by a broadcast's fan-out or finds the stored broadcast when it subscribes, never neither."""
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        with httpx.Client(http1=False, http2=True) as client:
            channel = create_channel(client, server, policy=1).headers["apns-channel-id"]
        devices = [register_device(server) for _ in range(12)]
        for device in devices:
            install(server, device)
        now = int(time.time())

        def send_all():
            with httpx.Client(http1=False, http2=True) as client:
                for number in range(1, 11):
                    assert broadcast(client, server, channel, {"timestamp": now + number, "event": "update",
                                                               "content-state": {"eta": eta(30), "driver": f"b{number}"}}).status_code == 200

        with concurrent.futures.ThreadPoolExecutor(max_workers=13) as pool:
            sender = pool.submit(send_all)
            subscribed = list(pool.map(lambda device: request_activity(server, device, "r", {"channel": channel}), devices))
            sender.result()
        assert len(subscribed) == 12
        for device in devices:
            assert [a["contentState"].get("driver") for a in activities(server, device)["activities"]] == ["b10"]
    finally:
        server.stop()
