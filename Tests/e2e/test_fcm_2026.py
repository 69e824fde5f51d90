"""FCM as Google's SDKs of 2026 send it (issue 55): `fid` targets, a malformed token refused as Google's error page shows,
Live Activities started and updated through FCM, a data-only message to an iPhone as iOS treats it, and the device
API refusing what belongs to the other platform. Google's Admin SDK for Python sends unchanged but for its address.
"""
import time
import warnings

import httpx
import pytest
from firebase_admin import exceptions, messaging

from conftest import ANDROID_PACKAGE, ADMIN_TOKEN, CHATS_CHANNEL, FCM_PROJECT, TOPIC, installed_app, read_center, register_android_phone, register_device

PACKAGE = ANDROID_PACKAGE
REFERENCE_DATE = 978_307_200  # ActivityKit's dates count from 2001-01-01
DECLARATION = {"types": [{"name": "DeliveryAttributes", "attributes": {"order": "string"}, "contentState": {"eta": "date"}}]}


def android_app(server):
    device, auth, apps = register_android_phone(server, {PACKAGE: {"channels": [CHATS_CHANNEL]}})
    return device, auth, apps[PACKAGE]


def iphone_app(server, body=None):
    device = register_device(server)
    auth = {"authorization": f"Bearer {device['secret']}"}
    if body:
        assert httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}", headers=auth, json=body).status_code == 200
    return device, auth, installed_app(server, device)


def last_event(server, device, auth):
    return httpx.get(f"{server.url}/v1/devices/{device['token']}/events", params={"limit": 1}, headers=auth).json()["events"][0]


def test_every_app_shows_its_installation_id_and_fid_reaches_it(plain_server, fcm_app):
    pixel, auth, app = android_app(plain_server)
    assert app["fcmToken"].startswith(app["fid"] + ":APA91b") and len(app["fid"]) == 22
    with warnings.catch_warnings():
        # firebase-admin 7.7 warns that token= is deprecated; fid= is what it asks for.
        warnings.simplefilter("error", DeprecationWarning)
        sent = messaging.send(messaging.Message(fid=app["fid"], android=messaging.AndroidConfig(
            notification=messaging.AndroidNotification(title="By fid", body="Hello", channel_id="chats"))), app=fcm_app)
    assert sent.startswith(f"projects/{FCM_PROJECT}/messages/")
    shade = httpx.get(f"{plain_server.url}/v1/devices/{pixel['token']}/center", headers=auth).json()
    assert [entry["title"] for entry in shade["entries"]] == ["By fid"]
    # An iPhone's app has one too.
    _, _, iphone = iphone_app(plain_server)
    assert iphone["fcmToken"].startswith(iphone["fid"] + ":")
    # An installation ID no app has, of any shape, is unregistered, as FCM answers it.
    for unknown in ("not-a-fid", app["fid"][:-1], "A" * 22):
        with pytest.raises(messaging.UnregisteredError):
            messaging.send(messaging.Message(fid=unknown, data={"a": "b"}), app=fcm_app)


def test_a_malformed_token_is_refused_as_googles_page_shows(plain_server, fcm_app):
    access_token = fcm_app.credential.get_access_token().access_token
    answer = httpx.post(f"{plain_server.url}/v1/projects/{FCM_PROJECT}/messages:send", headers={"authorization": f"Bearer {access_token}"},
                        json={"message": {"token": "not-a-token", "data": {"a": "b"}}})
    assert answer.status_code == 400
    assert answer.json() == {"error": {"code": 400, "message": "The registration token is not a valid FCM registration token",
                                       "status": "INVALID_ARGUMENT", "details": [
                                           {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}]}}
    with pytest.raises(exceptions.InvalidArgumentError):
        messaging.send(messaging.Message(token="not-a-token", data={"a": "b"}), app=fcm_app)
    # A token of FCM's shape that no app has is unregistered.
    with pytest.raises(messaging.UnregisteredError):
        messaging.send(messaging.Message(token="A" * 22 + ":APA91b" + "B" * 134, data={"a": "b"}), app=fcm_app)


def test_a_live_activity_is_started_and_updated_through_fcm(plain_server, fcm_app):
    """Firebase's Live Activity page: the app's token as the target, `apns.live_activity_token` the push-to-start token
    (then the activity's push token), the ActivityKit payload in `apns.payload.aps`; the iPhone's ActivityKit applies
    it as an APNs `liveactivity` push."""
    device, auth, app = iphone_app(plain_server, body={"liveActivities": DECLARATION})
    activities = f"{plain_server.url}/v1/devices/{device['token']}/activities"
    [start_token] = [token["token"] for token in httpx.get(activities, headers=auth).json()["pushToStartTokens"]]
    now = int(time.time())

    def send(live_activity_token, aps, alert=None):
        return messaging.send(messaging.Message(token=app["fcmToken"], apns=messaging.APNSConfig(
            live_activity_token=live_activity_token, headers={"apns-priority": "10"}, payload=messaging.APNSPayload(
                aps=messaging.Aps(alert=alert, custom_data=aps)))), app=fcm_app)

    send(start_token, {"timestamp": now, "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {"order": "42"},
                       "content-state": {"eta": now + 1200 - REFERENCE_DATE}}, alert=messaging.ApsAlert(title="Order 42", body="On its way"))
    [activity] = httpx.get(activities, headers=auth).json()["activities"]
    assert activity["state"] == "active" and activity["attributes"] == {"order": "42"}
    event = last_event(plain_server, device, auth)
    assert event["pushType"] == "liveactivity" and f"started Live Activity {activity['id']}" in event["action"]
    send(activity["updateToken"], {"timestamp": now + 1, "event": "update", "content-state": {"eta": now + 600 - REFERENCE_DATE}})
    assert last_event(plain_server, device, auth)["action"] == f"updated Live Activity {activity['id']}"
    assert httpx.get(activities, headers=auth).json()["activities"][0]["contentState"]["eta"] == now + 600 - REFERENCE_DATE
    # A token of another device is refused, naming the field.
    other, _, _ = iphone_app(plain_server)
    with pytest.raises(exceptions.InvalidArgumentError):
        send(other["token"] + "0" * 64, {"timestamp": now + 2, "event": "update", "content-state": {"eta": 0}})


def test_a_data_message_to_an_iphone_wakes_nothing_without_content_available(plain_server, fcm_app):
    device, auth, app = iphone_app(plain_server)
    messaging.send(messaging.Message(token=app["fcmToken"], data={"sync": "inbox"}), app=fcm_app)
    event = last_event(plain_server, device, auth)
    assert event["pushType"] == "background" and event["action"].startswith("woke nothing")
    assert event["payload"] == {"aps": {}, "sync": "inbox"}
    messaging.send(messaging.Message(token=app["fcmToken"], data={"sync": "inbox"}, apns=messaging.APNSConfig(
        headers={"apns-priority": "5"}, payload=messaging.APNSPayload(aps=messaging.Aps(content_available=True)))), app=fcm_app)
    assert last_event(plain_server, device, auth)["action"].startswith("woke the app in the background")
    assert read_center(plain_server, device)["groups"] == []


def test_the_device_api_refuses_what_belongs_to_the_other_platform(plain_server):
    iphone, iphone_auth, _ = iphone_app(plain_server)
    refused = httpx.put(f"{plain_server.url}/v1/devices/{iphone['token']}/apps/{TOPIC}", headers=iphone_auth,
                        json={"channels": [{"id": "chats", "name": "Chats", "importance": "high"}]})
    assert refused.status_code == 400 and refused.json()["error"].startswith("channels: this device is an iPhone (platform ios)")
    pixel, pixel_auth, _ = android_app(plain_server)
    app = f"{plain_server.url}/v1/devices/{pixel['token']}/apps/{PACKAGE}"
    for member, value in (("liveActivities", DECLARATION), ("categories", []), ("capabilities", ["timeSensitive"])):
        refused = httpx.put(app, headers=pixel_auth, json={member: value})
        assert refused.status_code == 400 and refused.json()["error"].startswith(f"{member}: this device is an Android phone"), refused.text
    assert httpx.put(f"{app}/categories", headers=pixel_auth, json=[]).status_code == 400
    # Nothing was stored: the iPhone's app has no channels.
    apps = httpx.get(f"{plain_server.url}/v1/devices/{iphone['token']}/apps", headers=iphone_auth).json()
    assert all("channels" not in app or not app["channels"] for app in apps)
