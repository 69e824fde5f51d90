"""Expo's unchanged Python server SDK (exponent_server_sdk 2.2.0) sending into Huddle's copy of Expo's push API (issue 59).

Only the address changes: `PushClient(host=server.url)`. Tickets, receipts and the SDK's exception classes are checked as
a back end uses them; what each phone shows is read from its center (docs/expo.md, README "Expo").
"""
import concurrent.futures
import gzip
import json
import pathlib
import subprocess

import httpx
import pytest
import requests
from exponent_server_sdk import (
    DeviceNotRegisteredError,
    MessageRateExceededError,
    MessageTooBigError,
    PushClient,
    PushMessage,
    PushServerError,
    PushTicketError,
)

from conftest import ADMIN_TOKEN, CHATS_CHANNEL, HUDDLE, Server, installed_app, read_center, register_android_phone, register_device

PROJECT = "@huddle-e2e/chat"
ANDROID_PACKAGE = "com.example.android.chat"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


def expo_token(server, device, topic, project=PROJECT):
    """The Expo push token of a device's app, after naming the app's Expo project."""
    auth = {"authorization": f"Bearer {device['secret']}"}
    response = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{topic}", headers=auth, json={"expoProject": project})
    assert response.status_code == 200, response.text
    app = response.json()
    assert app["expoProject"] == project
    assert app["expoPushToken"] == f"ExponentPushToken[{app['fid']}]"
    return app["expoPushToken"]


def iphone(server, project=PROJECT):
    device = register_device(server)
    return device, expo_token(server, device, "com.example.chat", project)


def android(server, project=PROJECT, channels=(CHATS_CHANNEL,)):
    device, _, _ = register_android_phone(server, {ANDROID_PACKAGE: {"name": "Chat", "channels": list(channels)}})
    return device, expo_token(server, device, ANDROID_PACKAGE, project)


def client(server):
    return PushClient(host=server.url)


def shade(server, device):
    return read_center(server, device)


def texts(center):
    """Every notification's title and body, as the center or shade lists them."""
    found = [(entry.get("title"), entry.get("body")) for entry in center.get("entries", [])]
    for group in center.get("groups", []):
        for notification in group.get("notifications", []):
            found.append((notification.get("title"), notification.get("body")))
    return found


def expo_records(server, device):
    records = httpx.get(f"{server.url}/v1/admin/requests", params={"device": device["token"], "limit": 1000}, headers=ADMIN).json()["requests"]
    return [record for record in records if "expo" in record]


def add_fault(server, **fault):
    response = httpx.post(f"{server.url}/v1/admin/faults", headers=ADMIN, json=fault)
    assert response.status_code in (200, 201), response.text
    return response.json()


@pytest.fixture(autouse=True)
def no_faults(plain_server):
    yield
    httpx.delete(f"{plain_server.url}/v1/admin/faults", headers=ADMIN)


def test_one_request_reaches_an_iphone_and_an_android_phone_and_both_receipts_are_ok(plain_server):
    iphone_device, iphone_token = iphone(plain_server)
    android_device, android_token = android(plain_server)
    tickets = client(plain_server).publish_multiple([
        PushMessage(to=iphone_token, title="Teja", body="Lunch at one?", data={"chat": 7}, badge=3, sound="default", category="msg"),
        PushMessage(to=android_token, title="Teja", body="Lunch at one?", data={"chat": 7}, channel_id="chats"),
    ])
    for ticket in tickets:
        ticket.validate_response()
        assert ticket.status == "ok" and len(ticket.id) == 36

    receipts = client(plain_server).check_receipts_multiple(tickets)
    assert sorted(receipt.id for receipt in receipts) == sorted(ticket.id for ticket in tickets)
    for receipt in receipts:
        receipt.validate_response()
        assert receipt.status == "ok"

    assert ("Teja", "Lunch at one?") in texts(shade(plain_server, iphone_device))
    assert ("Teja", "Lunch at one?") in texts(shade(plain_server, android_device))

    # The inspector shows what Expo sent each provider.
    [iphone_record] = expo_records(plain_server, iphone_device)
    assert iphone_record["answer"]["apnsID"] == tickets[0].id
    apns = iphone_record["expo"]["apns"]
    assert apns["headers"]["apns-push-type"] == "alert" and apns["headers"]["apns-priority"] == "10"
    assert apns["payload"]["aps"] == {"alert": {"title": "Teja", "body": "Lunch at one?"}, "badge": 3, "sound": "default", "category": "msg"}
    assert apns["payload"]["body"] == {"chat": 7} and apns["payload"]["experienceId"] == PROJECT
    assert iphone_record["expo"]["receipt"] == {"status": "ok"} and iphone_record["notification"]["app"] == "com.example.chat"
    [android_record] = expo_records(plain_server, android_device)
    # Each ticket is its own recipient's: the tickets come in request order.
    assert android_record["answer"]["apnsID"] == tickets[1].id
    fcm = android_record["expo"]["fcm"]
    assert fcm["data"]["title"] == "Teja" and fcm["data"]["message"] == "Lunch at one?" and json.loads(fcm["data"]["body"]) == {"chat": 7}
    assert fcm["priority"] == "normal"


def test_one_devices_messages_arrive_in_request_order_so_the_later_of_one_tag_shows(plain_server):
    device, token = android(plain_server)
    # One tag: each replaces the one before, so the last sent is the one shown.
    response = httpx.post(f"{plain_server.url}/--/api/v2/push/send",
                          json=[{"to": token, "title": "Match", "body": f"minute {n}", "tag": "match", "channelId": "chats"} for n in range(20)])
    assert all(ticket["status"] == "ok" for ticket in response.json()["data"])
    assert [body for title, body in texts(shade(plain_server, device)) if title == "Match"] == ["minute 19"]


def test_a_single_message_object_gets_a_single_ticket_object(plain_server):
    _, token = iphone(plain_server)
    response = httpx.post(f"{plain_server.url}/--/api/v2/push/send", json={"to": token, "body": "one"})
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "ok"
    response = httpx.post(f"{plain_server.url}/--/api/v2/push/send", json={"to": [token, token], "body": "two"})
    assert [ticket["status"] for ticket in response.json()["data"]] == ["ok", "ok"]


def test_the_sdk_chunks_150_messages_into_two_requests_and_every_one_is_delivered(plain_server):
    device, token = iphone(plain_server)
    tickets = client(plain_server).publish_multiple([PushMessage(to=token, title=f"Message {n}", body="b") for n in range(150)])
    assert len(tickets) == 150 and all(ticket.status == "ok" for ticket in tickets)
    assert len({ticket.id for ticket in tickets}) == 150
    receipts = client(plain_server).check_receipts_multiple(tickets)
    assert len(receipts) == 150 and all(receipt.status == "ok" for receipt in receipts)
    center = shade(plain_server, device)
    assert sum(len(group["notifications"]) for group in center["groups"]) + sum(group.get("more", 0) for group in center["groups"]) >= 100


def test_a_token_no_one_gave_is_an_error_ticket_the_sdk_raises_as_device_not_registered(plain_server):
    [ticket] = client(plain_server).publish_multiple([PushMessage(to="ExponentPushToken[not a token!]", body="x")])
    assert ticket.status == "error" and ticket.details == {"error": "DeviceNotRegistered", "expoPushToken": "ExponentPushToken[not a token!]"}
    assert ticket.id == ""
    with pytest.raises(DeviceNotRegisteredError) as raised:
        ticket.validate_response()
    assert "is not a valid Expo push token" in raised.value.message


def test_a_ticket_fault_is_the_tickets_error(plain_server):
    device, token = iphone(plain_server)
    add_fault(plain_server, device=device["token"], expoError="DeviceNotRegistered", expoIn="ticket", count=1)
    [ticket] = client(plain_server).publish_multiple([PushMessage(to=token, body="x")])
    with pytest.raises(DeviceNotRegisteredError):
        ticket.validate_response()
    assert texts(shade(plain_server, device)) == []


def test_a_receipt_fault_from_the_cli_comes_after_an_ok_ticket(plain_server):
    device, token = iphone(plain_server)
    added = subprocess.run(
        [str(HUDDLE), "faults", "add", "--server", plain_server.url, "--admin-token", ADMIN_TOKEN, "--expo-error", "DeviceNotRegistered",
         "--device", device["token"], "--count", "1"], capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["expoIn"] == "receipt"
    [ticket] = client(plain_server).publish_multiple([PushMessage(to=token, body="x")])
    ticket.validate_response()
    [receipt] = client(plain_server).check_receipts_multiple([ticket])
    with pytest.raises(DeviceNotRegisteredError):
        receipt.validate_response()
    assert texts(shade(plain_server, device)) == []
    # The fault caught one message: the next arrives.
    [ticket] = client(plain_server).publish_multiple([PushMessage(to=token, body="after")])
    [receipt] = client(plain_server).check_receipts_multiple([ticket])
    receipt.validate_response()
    assert (None, "after") in texts(shade(plain_server, device))


def test_an_app_the_device_removed_gets_an_ok_ticket_and_a_device_not_registered_receipt(plain_server):
    device, token = iphone(plain_server)
    response = httpx.delete(f"{plain_server.url}/v1/devices/{device['token']}/apps/com.example.chat",
                            headers={"authorization": f"Bearer {device['secret']}"})
    assert response.status_code in (200, 204), response.text
    [ticket] = client(plain_server).publish_multiple([PushMessage(to=token, body="anyone there?")])
    ticket.validate_response()
    [receipt] = client(plain_server).check_receipts_multiple([ticket])
    with pytest.raises(DeviceNotRegisteredError):
        receipt.validate_response()
    assert receipt.details == {"error": "DeviceNotRegistered"}


def test_a_message_past_4096_bytes_is_message_too_big_in_its_receipt(plain_server):
    device, token = iphone(plain_server)
    [ticket] = client(plain_server).publish_multiple([PushMessage(to=token, body="big", data={"blob": "x" * 5000})])
    ticket.validate_response()
    [receipt] = client(plain_server).check_receipts_multiple([ticket])
    with pytest.raises(MessageTooBigError):
        receipt.validate_response()
    assert texts(shade(plain_server, device)) == []


def test_a_rate_fault_is_message_rate_exceeded_in_the_receipts_past_the_rate(plain_server):
    device, token = iphone(plain_server)
    add_fault(plain_server, device=device["token"], pushesPerSecond=2)
    tickets = client(plain_server).publish_multiple([PushMessage(to=token, body=f"{n}") for n in range(6)])
    receipts = {receipt.id: receipt for receipt in client(plain_server).check_receipts_multiple(tickets)}
    refused = []
    for ticket in tickets:
        try:
            receipts[ticket.id].validate_response()
        except MessageRateExceededError:
            refused.append(ticket.push_message.body)
    # One request is one second of the server's clock: the first two are within the rate, in request order.
    assert refused == ["2", "3", "4", "5"]
    assert sorted(body for _, body in texts(shade(plain_server, device))) == ["0", "1"]


def test_request_errors_are_push_server_errors_with_expos_codes(plain_server):
    _, iphone_token = iphone(plain_server, project="@huddle-e2e/one")
    _, android_token = android(plain_server, project="@huddle-e2e/two")
    with pytest.raises(PushServerError) as raised:
        client(plain_server).publish_multiple([PushMessage(to=iphone_token, body="a"), PushMessage(to=android_token, body="b")])
    [error] = raised.value.errors
    assert error["code"] == "PUSH_TOO_MANY_EXPERIENCE_IDS" and raised.value.response.status_code == 400
    assert error["details"] == {"@huddle-e2e/one": [iphone_token], "@huddle-e2e/two": [android_token]}

    too_many = httpx.post(f"{plain_server.url}/--/api/v2/push/send", json=[{"to": iphone_token, "body": "x"}] * 101)
    assert too_many.status_code == 400 and too_many.json()["errors"][0]["code"] == "PUSH_TOO_MANY_NOTIFICATIONS"
    wrong = httpx.post(f"{plain_server.url}/--/api/v2/push/send", json=[{"to": iphone_token, "priority": "urgent"}])
    assert wrong.status_code == 400
    assert wrong.json() == {"errors": [{"code": "VALIDATION_ERROR", "message": '"[0].priority" expected one of default, normal, high'}]}
    receipts = httpx.post(f"{plain_server.url}/--/api/v2/push/getReceipts", json={"ids": ["x"] * 1001})
    assert receipts.status_code == 400 and receipts.json()["errors"][0]["code"] == "PUSH_TOO_MANY_RECEIPTS"
    assert httpx.get(f"{plain_server.url}/--/api/v2/push/send").status_code == 405


def test_unknown_and_expired_receipt_ids_are_left_out(plain_server):
    response = httpx.post(f"{plain_server.url}/--/api/v2/push/getReceipts", json={"ids": ["0190a2f0-0000-7000-8000-000000000000"]})
    assert response.status_code == 200 and response.json() == {"data": {}}


def test_a_gzipped_body_as_nodes_sdk_sends_it_is_inflated_and_a_bad_one_refused(plain_server):
    device, token = iphone(plain_server)
    body = json.dumps([{"to": token, "title": "Zipped", "body": "y" * 2000}]).encode()
    response = httpx.post(f"{plain_server.url}/--/api/v2/push/send", content=gzip.compress(body),
                          headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert response.status_code == 200 and response.json()["data"][0]["status"] == "ok", response.text
    assert texts(shade(plain_server, device))[0][0] == "Zipped"
    bad = httpx.post(f"{plain_server.url}/--/api/v2/push/send", content=b"not gzip", headers={"content-encoding": "gzip"})
    assert bad.status_code == 400 and bad.json()["errors"][0]["code"] == "VALIDATION_ERROR"
    bomb = httpx.post(f"{plain_server.url}/--/api/v2/push/send", content=gzip.compress(b" " * (2 << 20)), headers={"content-encoding": "gzip"})
    assert bomb.status_code == 400 and "inflates to more than" in bomb.json()["errors"][0]["message"]


def test_a_prefix_in_api_url_and_the_body_without_content_type_are_taken(plain_server):
    device, token = iphone(plain_server)
    session = requests.Session()
    session.headers.update({"accept": "application/json"})
    push = PushClient(host=plain_server.url, api_url="/expo/--/api/v2", session=session)
    [ticket] = push.publish_multiple([PushMessage(to=token, body="prefixed")])
    ticket.validate_response()
    [receipt] = push.check_receipts_multiple([ticket])
    receipt.validate_response()


def test_android_posts_to_the_firebase_fallback_for_a_channel_never_created_and_shows_nothing_for_data_only(plain_server):
    device, token = android(plain_server)
    tickets = client(plain_server).publish_multiple([
        PushMessage(to=token, title="Sale", body="no such channel", channel_id="promotions"),
        PushMessage(to=token, data={"sync": True}),
    ])
    receipts = client(plain_server).check_receipts_multiple(tickets)
    assert all(receipt.status == "ok" for receipt in receipts)
    [entry] = shade(plain_server, device)["entries"]
    assert entry["title"] == "Sale" and entry["channel"]["id"] == "fcm_fallback_notification_channel"
    actions = [record["event"]["action"] for record in expo_records(plain_server, device) if "event" in record]
    assert len(actions) == 1 and "shows nothing" in actions[0]


def test_an_access_token_is_required_when_the_server_has_one(workdir, keys):
    server = Server(workdir, tls=False, database=str(pathlib.Path(workdir) / "expo-token.sqlite"), extra=("--expo-access-token", "expo-secret"))
    try:
        _, token = iphone(server)
        with pytest.raises(PushServerError) as raised:
            PushClient(host=server.url).publish(PushMessage(to=token, body="x"))
        assert raised.value.errors[0]["code"] == "UNAUTHORIZED" and raised.value.response.status_code == 401
        session = requests.Session()
        session.headers.update({"authorization": "Bearer expo-secret", "accept": "application/json", "content-type": "application/json"})
        ticket = PushClient(host=server.url, session=session).publish(PushMessage(to=token, body="x"))
        ticket.validate_response()
        # Receipts need no token: Python's check_receipts() cannot send one.
        [receipt] = PushClient(host=server.url).check_receipts([ticket])
        receipt.validate_response()
    finally:
        server.stop()


def test_senders_at_once_each_get_their_notifications_and_receipts(plain_server):
    device, token = iphone(plain_server)

    def send(sender):
        return client(plain_server).publish_multiple([PushMessage(to=token, title=f"{sender}-{n}", body="b") for n in range(10)])

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        tickets = [ticket for batch in pool.map(send, range(8)) for ticket in batch]
    assert len(tickets) == 80 and all(ticket.status == "ok" for ticket in tickets)
    receipts = client(plain_server).check_receipts_multiple(tickets)
    assert len(receipts) == 80 and all(receipt.status == "ok" for receipt in receipts)
    records = expo_records(plain_server, device)
    assert len(records) == 80 and len({record["answer"]["apnsID"] for record in records}) == 80


def test_a_receipt_is_found_through_another_server_sharing_the_database(workdir, postgres_database):
    first = Server(workdir, tls=False, database=postgres_database)
    second = Server(workdir, tls=False, database=postgres_database)
    try:
        device, token = iphone(first)
        [ticket] = PushClient(host=first.url).publish_multiple([PushMessage(to=token, body="shared")])
        [receipt] = PushClient(host=second.url).check_receipts_multiple([ticket])
        receipt.validate_response()
        assert receipt.id == ticket.id
        assert (None, "shared") in texts(read_center(second, device))
    finally:
        first.stop()
        second.stop()
