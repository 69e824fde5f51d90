"""Web Push (issue 58, docs/web-push.md): unchanged real clients push into subscriptions Huddle minted, over TLS and
cleartext; Huddle checks each push as the service it imitates does, answers in its words, decrypts it, and shows what
the iPhone's Home Screen web app or Android's Chrome would."""
import base64
import json

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from conftest import ADMIN_TOKEN, read_center, register_android_phone, verification

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
CONTACT = {"sub": "mailto:ops@shop.example.com"}
DECLARATIVE = {"web_push": 8030, "notification": {"title": "Order shipped", "body": "Arrives Friday", "navigate": "https://shop.example/orders/42",
                                                  "tag": "order-42", "app_badge": "2"}}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def application_server():
    """An application server's VAPID key (py_vapid, as pywebpush's users make one) and its applicationServerKey."""
    vapid = Vapid02()
    vapid.generate_keys()
    raw = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return vapid, b64(raw)


def register_iphone(server):
    with httpx.Client(verify=verification(server)) as client:
        device = client.post(f"{server.url}/v1/devices", json={"name": "iPhone"}).json()
    return device, {"authorization": f"Bearer {device['secret']}"}


def subscribe(server, device, auth, key, **body):
    with httpx.Client(verify=verification(server)) as client:
        response = client.post(f"{server.url}/v1/devices/{device['token']}/web-push/subscriptions", headers=auth,
                               json={"origin": "https://shop.example", "applicationServerKey": key, **body})
    assert response.status_code == 201, response.text
    return response.json(), response.headers["location"]


def push(server, subscription, data, vapid, claims=None, **options):
    """pywebpush's webpush(), as its users call it; the server's certificate is the one trusted for TLS."""
    import requests
    session = requests.Session()
    # The server's certificate, not a CA bundle the environment names (requests lets REQUESTS_CA_BUNDLE win).
    session.trust_env = False
    session.verify = str(server.cert) if server.tls else True
    return webpush(subscription, data=data if isinstance(data, (str, bytes)) or data is None else json.dumps(data), vapid_private_key=vapid,
                   vapid_claims=dict(claims or CONTACT), requests_session=session, **options)


def refusal(server, subscription, data, vapid, **options):
    with pytest.raises(WebPushException) as caught:
        push(server, subscription, data, vapid, **options)
    return caught.value.response


def requests_of(server, **query):
    response = httpx.get(f"{server.url}/v1/admin/requests", params=query, headers=ADMIN, verify=verification(server))
    assert response.status_code == 200, response.text
    return response.json()["requests"]


def events_of(server, device, auth):
    response = httpx.get(f"{server.url}/v1/devices/{device['token']}/events", headers=auth, verify=verification(server))
    assert response.status_code == 200, response.text
    return response.json()["events"]


def test_pywebpush_over_tls_shows_a_declarative_push_on_the_iphone_and_the_inspector_decrypts_it(tls_server):
    vapid, key = application_server()
    device, auth = register_iphone(tls_server)
    subscription, location = subscribe(tls_server, device, auth, key)
    assert subscription["endpoint"].startswith(f"{tls_server.url}/web-push/apple/")
    assert subscription["expirationTime"] is None
    assert len(base64.urlsafe_b64decode(subscription["keys"]["p256dh"] + "==")) == 65
    assert len(base64.urlsafe_b64decode(subscription["keys"]["auth"] + "==")) == 16
    assert location.startswith(f"/v1/devices/{device['token']}/web-push/subscriptions/")

    response = push(tls_server, subscription, DECLARATIVE, vapid)
    assert response.status_code == 201
    assert response.headers["location"].startswith(f"{tls_server.url}/web-push/apple/m/")
    assert response.headers["apns-id"]

    center = read_center(tls_server, device)
    [group] = center["groups"]
    [notification] = group["notifications"]
    assert (group["app"], notification["title"], notification["body"]) == ("web.shop.example", "Order shipped", "Arrives Friday")
    assert notification["id"] == "order-42"

    [record] = requests_of(tls_server, device=device["token"])
    assert record["answer"]["status"] == 201 and record["connection"]["tls"] is True
    assert record["webPush"]["service"] == "apple"
    assert record["webPush"]["payload"] == DECLARATIVE
    assert record["webPush"]["vapid"]["aud"] == tls_server.url and record["webPush"]["vapid"]["sub"] == CONTACT["sub"]
    assert record["webPush"]["declarative"] == "shown as declared"
    assert record["notification"]["identifier"] == "order-42"


def test_the_same_page_subscribing_again_gets_its_subscription_and_another_key_is_refused(plain_server):
    _, key = application_server()
    device, auth = register_iphone(plain_server)
    first, _ = subscribe(plain_server, device, auth, key)
    url = f"{plain_server.url}/v1/devices/{device['token']}/web-push/subscriptions"
    again = httpx.post(url, headers=auth, json={"origin": "https://shop.example", "applicationServerKey": key})
    assert again.status_code == 200 and again.json() == first
    _, other = application_server()
    conflict = httpx.post(url, headers=auth, json={"origin": "https://shop.example", "applicationServerKey": other})
    assert conflict.status_code == 409 and "unsubscribe first" in conflict.text
    bad = httpx.post(url, headers=auth, json={"origin": "https://shop.example/path", "applicationServerKey": key})
    assert bad.status_code == 400 and "origin" in bad.text
    assert httpx.post(url, json={"origin": "https://shop.example", "applicationServerKey": key}).status_code == 401


@pytest.mark.parametrize("service, status, body", [
    ("apple", 400, {"reason": "VapidPkHashMismatch"}),
    ("mozilla", 401, {"code": 401, "errno": 109, "error": "Unauthorized", "message": "VAPID public key mismatch",
                      "more_info": "http://autopush.readthedocs.io/en/latest/http.html#error-codes"}),
    ("fcm", 403, "the VAPID credentials in the authorization header do not correspond to the credentials used to create the subscriptions.\n"),
])
def test_a_push_signed_by_another_key_is_refused_in_each_services_words(plain_server, service, status, body):
    _, key = application_server()
    stranger, _ = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key, service=service)
    response = refusal(plain_server, subscription, DECLARATIVE, stranger)
    assert response.status_code == status
    assert (response.json() if isinstance(body, dict) else response.text) == body


def test_apple_refuses_a_subject_at_localhost_and_an_audience_of_another_origin(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key)
    response = refusal(plain_server, subscription, DECLARATIVE, vapid, claims={"sub": "mailto:me@localhost"})
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})
    response = refusal(plain_server, subscription, DECLARATIVE, vapid, claims={**CONTACT, "aud": "https://web.push.apple.com"})
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})
    assert read_center(plain_server, device)["groups"] == []


def test_topics_and_sizes_are_checked_as_each_service_does(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    apple, _ = subscribe(plain_server, device, auth, key)
    response = refusal(plain_server, apple, DECLARATIVE, vapid, headers={"Topic": "abcde"})
    assert (response.status_code, response.json()) == (400, {"reason": "BadWebPushTopic"})
    assert push(plain_server, apple, DECLARATIVE, vapid, headers={"Topic": "order-42"}).status_code == 201
    response = refusal(plain_server, apple, {"padding": "x" * 4100}, vapid)
    assert (response.status_code, response.json()) == (413, {"reason": "PayloadTooLarge"})
    response = refusal(plain_server, apple, DECLARATIVE, vapid, headers={"Urgency": "urgent"})
    assert (response.status_code, response.json()) == (400, {"reason": "BadUrgency"})


def test_legacy_aesgcm_reaches_firefox_and_apple_refuses_it(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    firefox, _ = subscribe(plain_server, device, auth, key, service="mozilla")
    response = push(plain_server, firefox, DECLARATIVE, vapid, content_encoding="aesgcm")
    assert response.status_code == 201 and response.headers["ttl"] == "0"
    [record] = requests_of(plain_server, device=device["token"])
    assert record["webPush"]["payload"] == DECLARATIVE

    other, _ = register_iphone(plain_server)
    safari, _ = subscribe(plain_server, other, {"authorization": f"Bearer {other['secret']}"}, key)
    response = refusal(plain_server, safari, DECLARATIVE, vapid, content_encoding="aesgcm")
    assert (response.status_code, response.json()) == (400, {"reason": "BadWebPushRequest"})


def test_unsubscribed_is_410_in_each_services_words(plain_server):
    vapid, key = application_server()
    answers = {}
    for service in ("apple", "mozilla", "fcm"):
        device, auth = register_iphone(plain_server)
        subscription, location = subscribe(plain_server, device, auth, key, service=service)
        assert httpx.delete(f"{plain_server.url}{location}", headers=auth).status_code == 204
        answers[service] = refusal(plain_server, subscription, DECLARATIVE, vapid)
    assert (answers["apple"].status_code, answers["apple"].json()) == (410, {"reason": "Unregistered"})
    assert answers["mozilla"].status_code == 410 and answers["mozilla"].json()["errno"] == 106
    assert answers["mozilla"].headers["cache-control"] == "max-age=86400"
    assert (answers["fcm"].status_code, answers["fcm"].text) == (410, "push subscription has unsubscribed or expired.\n")
    unknown = dict(subscription, endpoint=subscription["endpoint"].rsplit("/", 1)[0] + "/" + "A" * 43)
    response = refusal(plain_server, unknown, DECLARATIVE, vapid)
    assert response.status_code == 404 and response.text.startswith("A valid push subscription endpoint")


def test_safari_revokes_a_web_app_whose_pushes_show_nothing(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key, serviceWorkerShowsNotifications=False)
    for _ in range(3):
        assert push(plain_server, subscription, {"kind": "sync"}, vapid).status_code == 201
    actions = [event["action"] for event in events_of(plain_server, device, auth)]
    assert any("1 of 3" in action for action in actions) and any("revoked" in action for action in actions), actions
    response = refusal(plain_server, subscription, {"kind": "sync"}, vapid)
    assert (response.status_code, response.json()) == (410, {"reason": "Unregistered"})
    # A declarative message that fails Safari's validation goes to the worker too, and the record says why.
    other, other_auth = register_iphone(plain_server)
    shows, _ = subscribe(plain_server, other, other_auth, key)
    assert push(plain_server, shows, {"web_push": 8030, "notification": {"title": "", "navigate": "https://shop.example"}}, vapid).status_code == 201
    [record] = requests_of(plain_server, device=other["token"])
    assert "notification.title" in record["webPush"]["declarative"]
    assert read_center(plain_server, other)["groups"] == []


def test_a_push_encrypted_for_other_keys_is_accepted_and_shown_apart(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key)
    wrong = dict(subscription, keys=dict(subscription["keys"], auth=b64(b"0123456789abcdef")))
    assert push(plain_server, wrong, DECLARATIVE, vapid).status_code == 201
    [record] = requests_of(plain_server, device=device["token"])
    assert "tag does not match" in record["webPush"]["decryptionFailure"]
    [event] = events_of(plain_server, device, auth)
    assert event["action"].startswith("accepted (201), but the browser could not decrypt it")


def test_chrome_on_android_shows_its_own_notification_for_a_silent_push(plain_server):
    vapid, key = application_server()
    phone, auth, _ = register_android_phone(plain_server, apps={})
    subscription, _ = subscribe(plain_server, phone, auth, key, serviceWorkerShowsNotifications=False)
    assert subscription["endpoint"].startswith(f"{plain_server.url}/web-push/fcm/wp/")
    response = push(plain_server, subscription, {"kind": "sync"}, vapid)
    assert response.status_code == 201
    [entry] = read_center(plain_server, phone)["entries"]
    assert (entry["title"], entry["body"]) == ("shop.example", "This site has been updated in the background.")


def test_faults_answer_429_with_retry_after_in_the_services_words(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key, service="fcm")
    fault = httpx.post(f"{plain_server.url}/v1/admin/faults", headers=ADMIN, json={"device": device["token"], "webPushStatus": 429, "count": 1})
    assert fault.status_code == 201, fault.text
    response = refusal(plain_server, subscription, DECLARATIVE, vapid)
    assert response.status_code == 429 and response.headers["retry-after"] == "60" and response.headers["content-type"].startswith("text/plain")
    assert push(plain_server, subscription, DECLARATIVE, vapid).status_code == 201


def test_a_second_library_that_encodes_on_its_own_reaches_the_web_app_over_cleartext(plain_server):
    """`webpush` (PyPI) encrypts with its own code, not http_ece's. Its VAPID audience is the endpoint's scheme and host
    without the port, which is not the endpoint's origin (RFC 6454): refused as Apple refuses a wrong `aud`, then sent
    again with py_vapid's header for the same claims and the port."""
    from webpush import WebPush, WebPushSubscription
    private = ec.generate_private_key(ec.SECP256R1())
    private_pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public_pem = private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    key = b64(private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key)
    sender = WebPush(private_key=private_pem, public_key=public_pem, subscriber="ops@shop.example.com")
    message = sender.get(message=json.dumps(DECLARATIVE), subscription=WebPushSubscription.model_validate(subscription))
    assert {name.lower() for name in message.headers} >= {"authorization", "content-encoding", "ttl"}
    response = httpx.post(subscription["endpoint"], content=message.encrypted, headers=message.headers)
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})
    [record] = requests_of(plain_server, device=device["token"])
    assert record["webPush"]["vapid"]["aud"] == "http://127.0.0.1"

    vapid = Vapid02.from_pem(private_pem)
    headers = {name: value for name, value in message.headers.items() if name.lower() != "authorization"}
    headers.update(vapid.sign({**CONTACT, "aud": plain_server.url}))
    response = httpx.post(subscription["endpoint"], content=message.encrypted, headers=headers)
    assert response.status_code == 201, response.text
    [group] = read_center(plain_server, device)["groups"]
    assert group["notifications"][0]["title"] == "Order shipped"


def test_a_push_over_http2_is_answered_by_the_transport_as_over_http1(tls_server):
    """The same encrypted push, as pywebpush prepares it, sent over HTTP/2 with TLS (the transport's own route, as for
    APNs pushes), and the same request over HTTP/1.1."""
    from pywebpush import WebPusher
    vapid, key = application_server()
    device, auth = register_iphone(tls_server)
    subscription, _ = subscribe(tls_server, device, auth, key)
    versions = []
    for http2 in (True, False):
        pusher = WebPusher(subscription)
        claims = {**CONTACT, "aud": tls_server.url, "exp": int(__import__("time").time()) + 3600}
        prepared = pusher._prepare_send_data(data=json.dumps(DECLARATIVE), headers=vapid.sign(claims), ttl=60)
        with httpx.Client(http2=http2, verify=verification(tls_server)) as client:
            response = client.post(prepared["endpoint"], content=prepared["data"], headers=prepared["headers"])
        assert response.status_code == 201, response.text
        versions.append(response.http_version)
    assert versions == ["HTTP/2", "HTTP/1.1"]
    records = requests_of(tls_server, device=device["token"])
    assert sorted(record["connection"]["httpVersion"] for record in records) == ["HTTP/1.1", "HTTP/2"]
    assert all(record["webPush"]["payload"] == DECLARATIVE for record in records)


def declarative(title):
    return {"web_push": 8030, "notification": {"title": title, "navigate": "https://shop.example/orders/42"}}


def test_an_offline_browser_gets_what_was_kept_for_it_a_topic_replacing(plain_server):
    """RFC 8030's store and forward: §5.4's Topic replaces an undelivered message, and §5.2's TTL 0 is dropped while the
    browser is away. (A TTL running out is WebPushEndpointTests', which moves the server's clock instead of waiting.)"""
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, location = subscribe(plain_server, device, auth, key)
    offline = httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": False})
    assert offline.status_code == 200, offline.text
    assert push(plain_server, subscription, declarative("Packed"), vapid, ttl=600, headers={"Topic": "order-42"}).status_code == 201
    assert push(plain_server, subscription, declarative("Shipped"), vapid, ttl=600, headers={"Topic": "order-42"}).status_code == 201
    assert push(plain_server, subscription, declarative("Now or never"), vapid, ttl=0).status_code == 201
    assert push(plain_server, subscription, declarative("Weekly picks"), vapid, ttl=600).status_code == 201
    assert read_center(plain_server, device)["groups"] == []
    records = list(reversed(requests_of(plain_server, device=device["token"])))
    assert [record["answer"]["status"] for record in records] == [201] * 4
    assert records[1]["webPush"]["pushService"] == (
        f"kept for the offline browser, replacing the undelivered message {records[0]['answer']['apnsID']} of Topic order-42")
    assert records[2]["webPush"]["pushService"].startswith("dropped: its TTL is 0")
    [listed] = httpx.get(f"{plain_server.url}/v1/devices/{device['token']}/web-push/subscriptions", headers=auth).json()["subscriptions"]
    assert (listed["online"], listed["pending"]) == (False, 2)

    back = httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": True}).json()
    assert (back["delivered"], back["expired"]) == (2, 0)
    titles = [n["title"] for group in read_center(plain_server, device)["groups"] for n in group["notifications"]]
    assert sorted(titles) == ["Shipped", "Weekly picks"]


def test_pushes_at_once_to_an_offline_browser_are_each_kept(plain_server):
    import concurrent.futures
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, location = subscribe(plain_server, device, auth, key)
    assert httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": False}).status_code == 200
    with concurrent.futures.ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(lambda n: push(plain_server, subscription, declarative(f"n{n}"), vapid, ttl=600).status_code, range(10)))
    assert statuses == [201] * 10
    [listed] = httpx.get(f"{plain_server.url}/v1/devices/{device['token']}/web-push/subscriptions", headers=auth).json()["subscriptions"]
    assert listed["pending"] == 10
    assert httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": True}).json()["delivered"] == 10


def test_two_pages_subscribing_at_once_get_one_subscription(plain_server):
    import concurrent.futures
    _, key = application_server()
    device, auth = register_iphone(plain_server)
    url = f"{plain_server.url}/v1/devices/{device['token']}/web-push/subscriptions"
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: httpx.post(url, headers=auth, json={"origin": "https://shop.example", "applicationServerKey": key}),
                                range(8)))
    assert sorted(answer.status_code for answer in answers) == [200] * 7 + [201]
    assert len({answer.json()["endpoint"] for answer in answers}) == 1
    assert len(httpx.get(url, headers=auth).json()["subscriptions"]) == 1


def test_apple_refuses_the_drafts_scheme_before_reading_it(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key)
    token = vapid.sign({**CONTACT, "aud": plain_server.url, "exp": int(__import__("time").time()) + 600})["Authorization"].split("t=")[1].split(",")[0]
    response = httpx.post(subscription["endpoint"], headers={"authorization": f"WebPush {token}", "ttl": "60"})
    assert (response.status_code, response.json()) == (403, {"reason": "BadAuthorizationHeader"})


def test_unsubscribing_drops_what_was_kept_and_an_ended_subscription_cannot_come_back(plain_server):
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, location = subscribe(plain_server, device, auth, key)
    assert httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": False}).status_code == 200
    assert push(plain_server, subscription, declarative("Kept"), vapid, ttl=600).status_code == 201
    assert httpx.delete(f"{plain_server.url}{location}", headers=auth).status_code == 204
    [listed] = httpx.get(f"{plain_server.url}/v1/devices/{device['token']}/web-push/subscriptions", headers=auth).json()["subscriptions"]
    assert (listed["active"], listed["pending"]) == (False, 0)
    back = httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": True})
    assert back.status_code == 409 and "has ended" in back.text
    assert read_center(plain_server, device)["groups"] == []


def test_a_web_app_revoked_while_its_kept_pushes_are_handed_over_answers_what_was_handed_over(plain_server):
    """Found by the attack: Safari revokes the subscription at the third silent push of a hand-over; the request still
    answers what it handed over, and the rest count as failed, not as an error of the request."""
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, location = subscribe(plain_server, device, auth, key, serviceWorkerShowsNotifications=False)
    assert httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": False}).status_code == 200
    for n in range(5):
        assert push(plain_server, subscription, {"kind": "sync", "n": n}, vapid, ttl=600).status_code == 201
    back = httpx.patch(f"{plain_server.url}{location}", headers=auth, json={"online": True})
    assert back.status_code == 200, back.text
    assert (back.json()["delivered"], back.json()["failed"]) == (3, 2)
    [listed] = httpx.get(f"{plain_server.url}/v1/devices/{device['token']}/web-push/subscriptions", headers=auth).json()["subscriptions"]
    assert (listed["active"], listed["pending"], listed["silentPushes"]) == (False, 0, 3)


def test_a_host_that_is_no_host_is_not_echoed_into_location(plain_server):
    import socket
    vapid, key = application_server()
    device, auth = register_iphone(plain_server)
    subscription, _ = subscribe(plain_server, device, auth, key, service="mozilla")
    from pywebpush import WebPusher
    # A sender that signs the very Host it sends (py_vapid refuses such an aud, so the token is made here), so that
    # the audience matches and the push is accepted.
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    claims = {**CONTACT, "aud": f"http://127.0.0.1:{plain_server.port}, evil", "exp": int(__import__("time").time()) + 600}
    signing_input = b64(json.dumps({"typ": "JWT", "alg": "ES256"}).encode()) + "." + b64(json.dumps(claims).encode())
    r, s = decode_dss_signature(vapid.private_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    authorization = f"vapid t={signing_input}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}, k={key}"
    prepared = WebPusher(subscription)._prepare_send_data(data=json.dumps(DECLARATIVE), headers={"Authorization": authorization}, ttl=60)
    path = subscription["endpoint"][len(plain_server.url):]
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{plain_server.port}, evil\r\nContent-Length: {len(prepared['data'])}\r\nConnection: close\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in prepared["headers"].items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", plain_server.port), timeout=10) as connection:
        connection.sendall(head.encode() + prepared["data"])
        answer = connection.recv(65536).decode(errors="replace")
    assert answer.startswith("HTTP/1.1 201"), answer
    assert "\r\nlocation: /web-push/mozilla/m/" in answer.lower() and "evil" not in answer


def test_connection_close_ends_the_connection_after_a_senders_answer(plain_server):
    """Found by the attack: HTTP/1.1's Connection: close on a sender's message (here a push to an unknown endpoint)
    is its connection's last request; the server closes it after the answer rather than at the idle timeout."""
    import socket
    request = (f"POST /web-push/apple/{'A' * 43} HTTP/1.1\r\nHost: 127.0.0.1:{plain_server.port}\r\nTTL: 60\r\n"
               "Content-Length: 0\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", plain_server.port), timeout=5) as connection:
        connection.sendall(request.encode())
        # Read to the end of the stream: a connection left open (until the idle timeout, 10 s) times the socket out first.
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 404") and b"connection: close" in received.lower()
