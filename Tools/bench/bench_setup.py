"""Sets up a running `huddle serve` for a push benchmark: registers a signing key (admin token `bench`), creates
devices with the bench app, and writes into WORK what the load tools need: `jwt` (a provider token), `device`
(the first device's token), `devices` (every device's token, one a line), `secrets` (their secrets, in the
same order, for the device API and its streams) and `payload.json`; with `--fcm`, what FCM sends need too.

    python3 Tools/bench/bench_setup.py URL WORK [--devices N] [--key PATH] [--fcm] [--web-push] [--expo] [--insecure]

The key is `--key` (default WORK/key.p8), made when it does not exist yet: servers that share one key accept
one provider token. `payload.json` is the 544-byte push the tooling baselines used, unless WORK has one
already (a benchmark of another payload writes its own first). `--insecure` skips the check of an https URL's
certificate (a server's self-signed one).
"""
import argparse
import json
import pathlib
import ssl
import sys
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "Tests" / "e2e"))
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from jwt_tokens import token  # noqa: E402

KEY_ID, TEAM_ID, TOPIC = "BENCH00001", "BENCHTEAM1", "com.example.bench"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--key", type=pathlib.Path)
    parser.add_argument("--fcm", action="store_true", help="also set up FCM sends (fcm_access_token, fcm_registration, fcm_message.json)")
    parser.add_argument("--web-push", action="store_true",
                        help="also subscribe a web app on the first device (web_push_path, web_push_body.bin, web_push_authorization)")
    parser.add_argument("--expo", action="store_true",
                        help="also write expo_messages.json: 100 Expo messages to the first device's app, of the APNs payload's texts")
    parser.add_argument("--insecure", action="store_true", help="do not verify an https URL's certificate (a self-signed one)")
    arguments = parser.parse_args()
    if arguments.insecure:
        urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=ssl._create_unverified_context())))
    key = arguments.key or arguments.work / "key.p8"
    if not key.exists():
        key.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    payload = arguments.work / "payload.json"
    if not payload.exists():
        payload.write_text(baseline_payload())

    def call(method, path, body, bearer=None):
        headers = {"authorization": f"Bearer {bearer}"} if bearer else {}
        request = urllib.request.Request(arguments.url + path, data=json.dumps(body).encode(), method=method, headers=headers)
        return json.load(urllib.request.urlopen(request))

    p8 = key.read_text()
    call("PUT", f"/v1/admin/keys/{KEY_ID}", {"teamID": TEAM_ID, "publicKey": p8, "topics": []}, "bench")
    tokens, secrets = [], []
    for index in range(arguments.devices):
        device = call("POST", "/v1/devices", {"name": f"bench {index}"})
        call("PUT", f"/v1/devices/{device['token']}/apps/{TOPIC}",
             {"categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}, device["secret"])
        tokens.append(device["token"])
        secrets.append(device["secret"])
    (arguments.work / "devices").write_text("\n".join(tokens) + "\n")
    (arguments.work / "secrets").write_text("\n".join(secrets) + "\n")
    (arguments.work / "device").write_text(tokens[0])
    (arguments.work / "jwt").write_text(token(p8, KEY_ID, TEAM_ID))
    if arguments.fcm:
        set_up_fcm(arguments.url, arguments.work, call, tokens[0], secrets[0])
    if arguments.web_push:
        set_up_web_push(arguments.url, arguments.work, call, tokens[0], secrets[0])
    if arguments.expo:
        set_up_expo(arguments.url, arguments.work, tokens[0], secrets[0])


def set_up_expo(url, work, device, secret):
    """For Expo sends: `expo_messages.json`, a request of 100 messages (Expo's most) to the bench app's Expo push token,
    each of the APNs payload's texts, as the Python SDK's publish_multiple sends a chunk."""
    apps = json.load(urllib.request.urlopen(urllib.request.Request(
        f"{url}/v1/devices/{device}/apps", headers={"authorization": f"Bearer {secret}"})))
    payload = json.loads(baseline_payload())
    aps = payload["aps"]
    message = {"to": apps[0]["expoPushToken"], "title": aps["alert"]["title"], "body": aps["alert"]["body"], "sound": "default",
               "categoryId": aps["category"], "data": {"conversation": payload["conversation"]}}
    (work / "expo_messages.json").write_text(json.dumps([message] * 100))


def set_up_web_push(url, work, call, device, secret):
    """For web pushes: a web app on the device subscribed with a new VAPID key, and one push to it as pywebpush
    prepares it (a Declarative Web Push of the same texts as the APNs payload, encrypted once: the server decrypts
    each copy), its path, body and Authorization."""
    import base64
    import urllib.parse
    from py_vapid import Vapid02
    from pywebpush import WebPusher

    vapid = Vapid02()
    vapid.generate_keys()
    key = base64.urlsafe_b64encode(vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)).rstrip(b"=").decode()
    subscription = call("POST", f"/v1/devices/{device}/web-push/subscriptions", {"origin": "https://bench.example", "applicationServerKey": key},
                        secret)
    aps = json.loads(baseline_payload())["aps"]
    message = {"web_push": 8030, "notification": {"title": aps["alert"]["title"], "body": aps["alert"]["body"],
                                                  "navigate": "https://bench.example/lab"}}
    claims = {"sub": "mailto:bench@bench.example.com", "aud": url, "exp": int(__import__("time").time()) + 12 * 3600}
    prepared = WebPusher(subscription)._prepare_send_data(data=json.dumps(message), headers=vapid.sign(claims), ttl=60)
    (work / "web_push_path").write_text(urllib.parse.urlparse(subscription["endpoint"]).path)
    (work / "web_push_body.bin").write_bytes(prepared["data"])
    (work / "web_push_authorization").write_text(prepared["headers"]["Authorization"])


def set_up_fcm(url, work, call, device, secret):
    """For FCM sends: a service account (registered as `huddle fcm service-account` registers one), an access token
    from the server's token endpoint (`fcm_access_token`), the bench app's registration token (`fcm_registration`)
    and `fcm_message.json`, a message to it of the same texts as the APNs payload."""
    import base64
    import time
    import urllib.parse
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    email = "bench@bench-project.iam.gserviceaccount.com"
    call("PUT", "/v1/admin/service-accounts/benchkey", {"project": "bench-project", "clientEmail": email, "publicKey": public}, "bench")

    def encode(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    now = int(time.time())
    header = encode(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "benchkey"}).encode())
    claims = encode(json.dumps({"iss": email, "aud": "https://oauth2.googleapis.com/token", "iat": now, "exp": now + 3600,
                                "scope": "https://www.googleapis.com/auth/firebase.messaging"}).encode())
    signature = encode(key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()))
    form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": f"{header}.{claims}.{signature}"})
    request = urllib.request.Request(url + "/token", data=form.encode(), headers={"content-type": "application/x-www-form-urlencoded"})
    (work / "fcm_access_token").write_text(json.load(urllib.request.urlopen(request))["access_token"])
    apps = json.load(urllib.request.urlopen(urllib.request.Request(
        f"{url}/v1/devices/{device}/apps", headers={"authorization": f"Bearer {secret}"})))
    registration = apps[0]["fcmToken"]
    (work / "fcm_registration").write_text(registration)
    aps = json.loads(baseline_payload())["aps"]
    message = {"message": {"token": registration, "notification": {"title": aps["alert"]["title"], "body": aps["alert"]["body"]},
                           "apns": {"payload": {"aps": {"thread-id": aps["thread-id"], "category": aps["category"], "sound": "default"}}}}}
    (work / "fcm_message.json").write_text(json.dumps(message))


def baseline_payload():
    """A 544-byte payload, the size the tooling baselines used."""
    aps = {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here, come to the lab on the second floor",
                     "summary-arg": "Kritarth"}, "thread-id": "team", "category": "msg", "sound": "default"}
    text = json.dumps({"aps": aps, "conversation": {"id": 51413, "kind": "group"}})
    return text[:-1] + ', "padding": "' + "x" * (544 - len(text) - 15) + '"}'


if __name__ == "__main__":
    main()
