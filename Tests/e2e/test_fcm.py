"""Google's unchanged Firebase Admin SDK for Python sending into Huddle's FCM HTTP v1 API (issue 42).

The SDK is set up as its users set it up, from a service-account JSON that `huddle fcm service-account` wrote, and
only the address it sends to changes: `_MessagingService.FCM_URL` (its one class attribute for messages:send) and, for
topics, the service's `_fcm_topic_url` (docs/fcm.md, README "Firebase Cloud Messaging").
"""
import json
import re
import subprocess
import uuid

import httpx
import pytest
from firebase_admin import exceptions, messaging

from conftest import ANDROID_PACKAGE, ADMIN_TOKEN, CHATS_CHANNEL, FCM_PROJECT, HUDDLE, TOPIC, installed_app, read_center, register_android_phone, register_device

PROJECT = FCM_PROJECT
PACKAGE = ANDROID_PACKAGE
# A token of FCM's shape (an installation ID, a colon, more) that no app has: unregistered, where a token without the
# shape is malformed (test_fcm_2026.py).
UNKNOWN_TOKEN = "U" * 22 + ":APA91b-no-app-has-this-token"


def android_device(server, firebase_project=None):
    """An Android phone with Chat and its channel (registered with `firebase_project`, if given); returns the device
    and Chat's registration token."""
    body = {"name": "Chat", "channels": [CHATS_CHANNEL]} | ({"firebaseProject": firebase_project} if firebase_project else {})
    device, _, apps = register_android_phone(server, {PACKAGE: body})
    return device, apps[PACKAGE]["fcmToken"]


def iphone_token(server, device):
    return installed_app(server, device)["fcmToken"]


def add_fault(server, **fault):
    response = httpx.post(f"{server.url}/v1/admin/faults", headers={"authorization": f"Bearer {ADMIN_TOKEN}"}, json=fault)
    assert response.status_code in (200, 201), response.text


def test_the_key_file_is_a_service_accounts_and_its_token_uri_is_huddles(fcm_account_file, plain_server):
    key = json.loads(fcm_account_file.read_text())
    assert key["type"] == "service_account" and key["project_id"] == PROJECT
    assert key["token_uri"] == plain_server.url + "/token"
    assert key["private_key"].startswith("-----BEGIN PRIVATE KEY-----")
    listed = httpx.get(f"{plain_server.url}/v1/admin/service-accounts", headers={"authorization": f"Bearer {ADMIN_TOKEN}"}).json()
    assert key["private_key_id"] in [account["keyID"] for account in listed]


def test_one_message_reaches_an_android_phone_and_an_iphone_as_each_shows_it(plain_server, fcm_app):
    android, android_token = android_device(plain_server)
    iphone = register_device(plain_server)
    message_id = messaging.send(messaging.Message(
        token=android_token,
        notification=messaging.Notification(title="Teja", body="Lunch at one?"),
        android=messaging.AndroidConfig(notification=messaging.AndroidNotification(channel_id="chats", tag="lunch")),
    ), app=fcm_app)
    assert message_id.startswith(f"projects/{PROJECT}/messages/0:")
    messaging.send(messaging.Message(
        token=iphone_token(plain_server, iphone),
        notification=messaging.Notification(title="Teja", body="Lunch at one?"),
        apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(thread_id="teja", sound="default"))),
    ), app=fcm_app)
    shade = read_center(plain_server, android)
    assert shade["platform"] == "android"
    [entry] = shade["entries"]
    assert (entry["title"], entry["body"], entry["channel"]["id"], entry["tag"]) == ("Teja", "Lunch at one?", "chats", "lunch")
    assert entry["alerting"]["headsUp"] is True
    center = read_center(plain_server, iphone)
    assert [n["title"] for group in center["groups"] for n in group["notifications"]] == ["Teja"]
    assert center["groups"][0]["thread"] == "teja"


def test_a_tag_replaces_and_a_channel_the_app_lacks_falls_back(plain_server, fcm_app):
    android, token = android_device(plain_server)
    for body in ("first", "second"):
        messaging.send(messaging.Message(token=token, android=messaging.AndroidConfig(
            notification=messaging.AndroidNotification(title="Score", body=body, tag="match", channel_id="missing"))), app=fcm_app)
    shade = read_center(plain_server, android)
    [entry] = shade["entries"]
    assert entry["body"] == "second"
    assert entry["channel"]["id"] == "fcm_fallback_notification_channel"


def test_send_each_of_500_answers_each_message(plain_server, fcm_app):
    _, token = android_device(plain_server)
    messages = [messaging.Message(token=token, data={"n": str(n)}) for n in range(500)]
    batch = messaging.send_each(messages, app=fcm_app)
    assert batch.success_count == 500 and batch.failure_count == 0
    assert len({response.message_id for response in batch.responses}) == 500


def test_topic_and_condition_messages_reach_the_subscribed_apps(plain_server, fcm_app):
    android, android_token = android_device(plain_server)
    iphone = register_device(plain_server)
    iphone_fcm = iphone_token(plain_server, iphone)
    topic = f"news-{uuid.uuid4().hex[:8]}"
    result = messaging.subscribe_to_topic([android_token, iphone_fcm], topic, app=fcm_app)
    assert result.success_count == 2, [e.reason for e in result.errors]
    assert messaging.subscribe_to_topic([iphone_fcm], topic + "-sports", app=fcm_app).success_count == 1
    assert messaging.subscribe_to_topic(["unknown-token"], topic, app=fcm_app).failure_count == 1
    # One message with an android and an apns block reaches both phones, each as its platform shows it.
    messaging.send(messaging.Message(
        topic=topic, notification=messaging.Notification(title="Headline", body="for everyone"),
        android=messaging.AndroidConfig(notification=messaging.AndroidNotification(channel_id="chats", tag="headline")),
        apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(thread_id="news")))), app=fcm_app)
    messaging.send(messaging.Message(
        condition=f"'{topic}' in topics && '{topic}-sports' in topics",
        notification=messaging.Notification(title="Goal", body="for both topics")), app=fcm_app)
    android_titles = [entry["title"] for entry in read_center(plain_server, android)["entries"]]
    iphone_titles = sorted(n["title"] for group in read_center(plain_server, iphone)["groups"] for n in group["notifications"])
    assert android_titles == ["Headline"]
    assert iphone_titles == ["Goal", "Headline"]
    [headline] = read_center(plain_server, android)["entries"]
    assert headline["tag"] == "headline" and headline["channel"]["id"] == "chats"
    assert "news" in [group["thread"] for group in read_center(plain_server, iphone)["groups"]]
    assert messaging.unsubscribe_from_topic([android_token], topic, app=fcm_app).success_count == 1
    messaging.send(messaging.Message(topic=topic, notification=messaging.Notification(title="Later", body="iPhone only")), app=fcm_app)
    assert [entry["title"] for entry in read_center(plain_server, android)["entries"]] == ["Headline"]


def test_a_topic_message_skips_an_app_registered_with_another_project_since_it_subscribed(plain_server, fcm_app):
    """The project is checked again when a topic message fans out: an app that subscribed before it was registered with
    another Firebase project gets nothing, and an app of this project still gets it."""
    moved, moved_token = android_device(plain_server)
    staying, staying_token = android_device(plain_server, firebase_project=PROJECT)
    topic = f"moved-{uuid.uuid4().hex[:8]}"
    assert messaging.subscribe_to_topic([moved_token, staying_token], topic, app=fcm_app).success_count == 2
    response = httpx.put(f"{plain_server.url}/v1/devices/{moved['token']}/apps/{PACKAGE}",
                         headers={"authorization": f"Bearer {moved['secret']}"},
                         json={"name": "Chat", "channels": [{"id": "chats", "name": "Chats", "importance": "high"}],
                               "firebaseProject": "another-project"})
    assert response.status_code == 200, response.text
    messaging.send(messaging.Message(topic=topic, notification=messaging.Notification(title="Headline", body="for this project")),
                   app=fcm_app)
    # Answered once every delivery committed (docs/fcm.md): both centers are as they will stay.
    assert read_center(plain_server, moved)["entries"] == []
    assert [entry["title"] for entry in read_center(plain_server, staying)["entries"]] == ["Headline"]


def test_every_refusal_is_the_sdks_own_exception(plain_server, fcm_app):
    _, token = android_device(plain_server)
    _, other_project_token = android_device(plain_server, firebase_project="another-project")
    with pytest.raises(messaging.UnregisteredError):
        messaging.send(messaging.Message(token=UNKNOWN_TOKEN, data={"a": "b"}), app=fcm_app)
    with pytest.raises(messaging.SenderIdMismatchError):
        messaging.send(messaging.Message(token=other_project_token, data={"a": "b"}), app=fcm_app)
    with pytest.raises(exceptions.InvalidArgumentError) as refused:
        messaging.send(messaging.Message(token=token, data={"from": "me"}), app=fcm_app)
    details = refused.value.http_response.json()["error"]["details"]
    violations = [v for d in details for v in d.get("fieldViolations", [])]
    assert violations[0]["field"] == "message.data" and '"from"' in violations[0]["description"]
    for code, error, count in [
        ("QUOTA_EXCEEDED", messaging.QuotaExceededError, 1),
        # The SDK sends a 500 or 503 five times and a 401 three times before it gives up (docs/fcm-research.md 2.4).
        ("UNAVAILABLE", exceptions.UnavailableError, 5),
        ("INTERNAL", exceptions.InternalError, 5),
        ("THIRD_PARTY_AUTH_ERROR", messaging.ThirdPartyAuthError, 3),
    ]:
        add_fault(plain_server, fcmError=code, topic=PACKAGE, count=count)
        with pytest.raises(error):
            messaging.send(messaging.Message(token=token, data={"a": "b"}), app=fcm_app)
    # A fault spent, sends go through again; and a 503 once is retried by the SDK and then succeeds.
    add_fault(plain_server, fcmError="UNAVAILABLE", topic=PACKAGE, count=1)
    assert messaging.send(messaging.Message(token=token, data={"a": "b"}), app=fcm_app).startswith("projects/")


def test_requests_without_a_token_or_for_another_project_are_refused_as_google_refuses_them(plain_server, fcm_app):
    _, token = android_device(plain_server)
    body = {"message": {"token": token, "data": {"a": "b"}}}
    unauthenticated = httpx.post(f"{plain_server.url}/v1/projects/{PROJECT}/messages:send", json=body)
    assert unauthenticated.status_code == 401
    assert unauthenticated.json()["error"]["status"] == "UNAUTHENTICATED"
    forged = httpx.post(f"{plain_server.url}/v1/projects/{PROJECT}/messages:send", json=body,
                        headers={"authorization": "Bearer ya29.huddle.a.b.c"})
    assert forged.status_code == 401
    access_token = fcm_app.credential.get_access_token().access_token
    other = httpx.post(f"{plain_server.url}/v1/projects/another-project/messages:send", json=body,
                       headers={"authorization": f"Bearer {access_token}"})
    assert other.status_code == 403 and other.json()["error"]["status"] == "PERMISSION_DENIED"
    ok = httpx.post(f"{plain_server.url}/v1/projects/{PROJECT}/messages:send", json=body, headers={"authorization": f"Bearer {access_token}"})
    assert ok.status_code == 200 and ok.json()["name"].startswith(f"projects/{PROJECT}/messages/")


def test_the_inspector_records_fcm_sends(plain_server, fcm_app):
    android, token = android_device(plain_server)
    messaging.send(messaging.Message(token=token, notification=messaging.Notification(title="Seen", body="by the inspector")), app=fcm_app)
    records = httpx.get(f"{plain_server.url}/v1/admin/requests", params={"device": android["token"]},
                        headers={"authorization": f"Bearer {ADMIN_TOKEN}"}).json()
    [record] = records["requests"]
    assert record["answer"]["status"] == 200 and record["path"] == f"/v1/projects/{PROJECT}/messages:send"
    metrics = httpx.get(f"{plain_server.url}/metrics").text
    accepted = re.search(r'huddle_fcm_requests_total\{(?:status="200",error=""|error="",status="200")\} (\d+)', metrics)
    assert accepted and int(accepted.group(1)) >= 1, metrics


def test_an_apns_push_to_an_android_phone_is_refused(plain_server):
    android, _ = android_device(plain_server)
    response = httpx.post(f"{plain_server.url}/3/device/{android['token']}", json={"aps": {"alert": "hi"}},
                          headers={"apns-topic": PACKAGE})
    assert response.status_code in (400, 403)


def test_huddle_send_fcm_sends_a_message_as_the_sdks_do(plain_server, fcm_account_file, tmp_path):
    android, token = android_device(plain_server)
    message = tmp_path / "message.json"
    message.write_text(json.dumps({"token": token, "notification": {"title": "From the CLI", "body": "huddle send --fcm"}}))
    sent = subprocess.run([str(HUDDLE), "send", "--fcm", str(fcm_account_file), "--url", plain_server.url, str(message)],
                          capture_output=True, text=True)
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.startswith("200 ") and f"projects/{PROJECT}/messages/" in sent.stdout
    assert [entry["title"] for entry in read_center(plain_server, android)["entries"]] == ["From the CLI"]
    message.write_text(json.dumps({"token": UNKNOWN_TOKEN, "data": {"a": "b"}}))
    refused = subprocess.run([str(HUDDLE), "send", "--fcm", str(fcm_account_file), "--url", plain_server.url, str(message)],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and refused.stdout.startswith("404 ") and "UNREGISTERED" in refused.stdout


def test_hostile_requests_get_googles_answers_and_the_server_stays(plain_server, fcm_app):
    _, token = android_device(plain_server)
    access_token = fcm_app.credential.get_access_token().access_token
    headers = {"authorization": f"Bearer {access_token}"}
    send = f"{plain_server.url}/v1/projects/{PROJECT}/messages:send"
    too_big = httpx.post(send, headers=headers, content=b'{"message": {"token": "' + b"a" * 70_000 + b'"}}')
    assert too_big.status_code == 400 and too_big.json()["error"]["status"] == "INVALID_ARGUMENT"
    nested = httpx.post(send, headers=headers, content=b'{"message": {"token": "t", "apns": {"payload": ' + b"[" * 5000 + b"]" * 5000 + b"}}}")
    assert nested.status_code == 400
    not_json = httpx.post(send, headers=headers, content=b"\xff\xfe{")
    assert not_json.status_code == 400 and "Invalid JSON payload" in not_json.json()["error"]["message"]
    condition = " || ".join(f"'t{n}' in topics" for n in range(6))
    too_many = httpx.post(send, headers=headers, json={"message": {"condition": condition, "data": {"a": "b"}}})
    assert too_many.status_code == 400 and too_many.json()["error"]["details"]
    long_project = httpx.post(f"{plain_server.url}/v1/projects/{'p' * 5000}/messages:send", headers=headers, json={})
    assert long_project.status_code in (404, 414, 431)
    bad_grant = httpx.post(f"{plain_server.url}/token", data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                                               "assertion": "x." * 3000})
    assert bad_grant.status_code == 400 and bad_grant.json()["error"] == "invalid_grant"
    cross_site = httpx.post(send, headers={**headers, "origin": "https://evil.example"}, json={"message": {"token": token, "data": {"a": "b"}}})
    assert cross_site.status_code == 403
    # Everything accepted before is still there, and sends go on.
    assert messaging.send(messaging.Message(token=token, data={"still": "here"}), app=fcm_app).startswith("projects/")


def test_racing_messages_with_one_tag_leave_one_notification_and_without_a_tag_each_stays(plain_server, fcm_app):
    """send_each sends its messages at once (one thread each): 40 with one tag leave exactly one notification, the
    last committed; 40 without a tag leave 40 (grouped, as Android groups four or more)."""
    android, token = android_device(plain_server)
    tagged = [messaging.Message(token=token, android=messaging.AndroidConfig(
        notification=messaging.AndroidNotification(title="Score", body=f"update {n}", tag="score", channel_id="chats"))) for n in range(40)]
    assert messaging.send_each(tagged, app=fcm_app).success_count == 40
    [entry] = read_center(plain_server, android)["entries"]
    assert entry["tag"] == "score" and entry["body"].startswith("update ")
    untagged = [messaging.Message(token=token, notification=messaging.Notification(title="Chat", body=f"message {n}")) for n in range(40)]
    assert messaging.send_each(untagged, app=fcm_app).success_count == 40
    shade = read_center(plain_server, android)
    groups = [entry for entry in shade["entries"] if entry["kind"] == "group"]
    assert len(groups) == 1 and groups[0]["count"] == 41
    assert sorted(child["body"] for child in groups[0]["children"] if child["tag"] is None) == sorted(f"message {n}" for n in range(40))


def test_loc_keys_read_the_apps_uploaded_strings_in_the_devices_language(plain_server, fcm_app):
    android, token = android_device(plain_server)
    auth = {"authorization": f"Bearer {android['secret']}"}
    base = f"{plain_server.url}/v1/devices/{android['token']}/apps/{PACKAGE}/localizations"
    assert httpx.put(f"{base}/values/strings.xml", headers=auth,
                     content='<resources><string name="greeting">Hello, %1$s</string></resources>').status_code == 204
    assert httpx.put(f"{base}/values-de/strings.xml", headers=auth,
                     content='<resources><string name="greeting">Hallo, %1$s</string></resources>').status_code == 204
    bad = httpx.put(f"{base}/values-fr/strings.xml", headers=auth, content='<resources><string>no name</string></resources>')
    assert bad.status_code == 400 and "values-fr/strings.xml:1" in bad.text
    messaging.send(messaging.Message(token=token, android=messaging.AndroidConfig(notification=messaging.AndroidNotification(
        title_loc_key="greeting", title_loc_args=["Teja"], body="…", channel_id="chats"))), app=fcm_app)
    assert [entry["title"] for entry in read_center(plain_server, android)["entries"]] == ["Hello, Teja"]
    assert [entry["title"] for entry in read_center(plain_server, android, languages="de-DE")["entries"]] == ["Hallo, Teja"]


def test_validate_only_package_names_topic_management_and_scopes_are_answered_as_fcm_answers_them(plain_server, fcm_app, fcm_account_file):
    import base64
    import time

    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    android, token = android_device(plain_server)
    _, bound = android_device(plain_server, firebase_project="another-project")
    access_token = fcm_app.credential.get_access_token().access_token
    headers = {"authorization": f"Bearer {access_token}"}
    send = f"{plain_server.url}/v1/projects/{PROJECT}/messages:send"
    # validate_only checks the token's app and stores nothing.
    checked = httpx.post(send, headers=headers, json={"validate_only": True, "message": {"token": token, "notification": {"title": "Dry"}}})
    assert checked.status_code == 200 and checked.json()["name"].startswith(f"projects/{PROJECT}/messages/")
    assert httpx.post(send, headers=headers, json={"validate_only": True, "message": {"token": UNKNOWN_TOKEN, "data": {"a": "b"}}}).status_code == 404
    assert read_center(plain_server, android)["entries"] == []
    # A message restricted to another package is refused, naming the field.
    restricted = httpx.post(send, headers=headers, json={"message": {"token": token, "data": {"a": "b"},
                                                                      "android": {"restricted_package_name": "com.example.other"}}})
    assert restricted.status_code == 400
    assert restricted.json()["error"]["details"][-1]["fieldViolations"][0]["field"] == "message.android.restricted_package_name"
    # Topic subscriptions: an app of another project is refused; a missing one is 404 unless allow_missing.
    registrations = f"{plain_server.url}/v1/projects/{PROJECT}/registrations"
    mismatch = httpx.post(f"{registrations}/{bound}/topicSubscriptions", params={"topic_name": "news"}, headers=headers, json={})
    assert mismatch.status_code == 403 and mismatch.json()["error"]["details"][0]["errorCode"] == "SENDER_ID_MISMATCH"
    missing = httpx.delete(f"{registrations}/{token}/topicSubscriptions/never", headers=headers)
    assert missing.status_code == 404
    assert httpx.delete(f"{registrations}/{token}/topicSubscriptions/never", params={"allow_missing": "true"}, headers=headers).status_code == 200
    # The Instance ID API the other SDKs use: one result per token, in order, the project being the account's.
    added = httpx.post(f"{plain_server.url}/iid/v1:batchAdd", headers=headers,
                       json={"to": "/topics/iid", "registration_tokens": [token, "unknown", bound]})
    assert added.json() == {"results": [{}, {"error": "NOT_FOUND"}, {"error": "PERMISSION_DENIED"}]}
    messaging.send(messaging.Message(topic="iid", notification=messaging.Notification(title="By IID", body="topic")), app=fcm_app)
    assert [entry["title"] for entry in read_center(plain_server, android)["entries"]] == ["By IID"]
    removed = httpx.post(f"{plain_server.url}/iid/v1:batchRemove", headers=headers, json={"to": "iid", "registration_tokens": [token]})
    assert removed.json() == {"results": [{}]}
    # An access token whose scopes do not include messaging is refused: 403, insufficient scopes.
    key = json.loads(fcm_account_file.read_text())
    private = serialization.load_pem_private_key(key["private_key"].encode(), password=None)

    def encode(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    now = int(time.time())
    header = encode(json.dumps({"alg": "RS256", "typ": "JWT", "kid": key["private_key_id"]}).encode())
    claims = encode(json.dumps({"iss": key["client_email"], "aud": "https://oauth2.googleapis.com/token", "iat": now, "exp": now + 3600,
                                "scope": "https://www.googleapis.com/auth/datastore"}).encode())
    signature = encode(private.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()))
    granted = httpx.post(f"{plain_server.url}/token", data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                                             "assertion": f"{header}.{claims}.{signature}"})
    assert granted.status_code == 200
    narrow = httpx.post(send, headers={"authorization": f"Bearer {granted.json()['access_token']}"},
                        json={"message": {"token": token, "data": {"a": "b"}}})
    assert narrow.status_code == 403 and narrow.json()["error"]["message"] == "Request had insufficient authentication scopes."
