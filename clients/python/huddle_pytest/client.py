"""A running Huddle, seen as a test sees it: devices with an app, provider tokens, pushes, and waits."""

import base64
import json
import math
import time

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def provider_token(private_key_pem, key_id, team_id, issued_at=None):
    """An APNs provider token (ES256 JWT), as any provider signs one."""
    key = serialization.load_pem_private_key(private_key_pem.encode() if isinstance(private_key_pem, str) else private_key_pem, password=None)
    header = _b64(json.dumps({"alg": "ES256", "kid": key_id}).encode())
    claims = _b64(json.dumps({"iss": team_id, "iat": int(time.time() if issued_at is None else issued_at)}).encode())
    r, s = decode_dss_signature(key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{header}.{claims}.{_b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


class WaitTimedOut(AssertionError):
    """What a wait raises when what it waited for did not come in time, saying what did."""


class Device:
    """A registered device with one app: its token and secret, and its center."""

    def __init__(self, huddle, token, secret, topic, fcm_token=None, expo_token=None):
        self.huddle, self.token, self.secret, self.topic = huddle, token, secret, topic
        # The app's FCM registration token: what an FCM message to this device's app is sent to.
        self.fcm_token = fcm_token
        # The app's Expo push token (ExponentPushToken[…]): what an Expo message to this device's app is sent to.
        self.expo_token = expo_token

    def center(self, languages="en", locked=False, wait=None, notifications=None, change=None):
        """The rendered center; with `wait` (seconds) and `notifications` or `change`, once it holds them."""
        params = {"languages": languages, "locked": str(locked).lower()}
        if wait is not None:
            params.update(wait=math.ceil(wait), **({"notifications": notifications} if notifications is not None else {}),
                          **({"change": change} if change is not None else {}))
        response = self.huddle.http.get(f"/v1/devices/{self.token}/center", params=params,
                                        headers={"authorization": f"Bearer {self.secret}"}, timeout=(wait or 0) + 30)
        response.raise_for_status()
        if wait is not None and response.headers.get("huddle-wait") != "met":
            raise WaitTimedOut(f"the center did not reach {notifications} notifications / change {change} within {wait} s")
        return response.json()

    def summaries(self, **center):
        """Each group's summary line, in center order."""
        return [group.get("summary") for group in self.center(**center)["groups"]]


class WebPushSubscription:
    """A web app's push subscription on a device, and an application server's VAPID key for it: what a back end that
    sends Web Push needs. `info` is what `PushSubscription.toJSON()` gave the page (pywebpush's `subscription_info`);
    `vapid_private_key` is the key as pywebpush and py_vapid take it (base64url of the raw private key);
    `vapid_claims` has a contact `sub` that every service takes."""

    def __init__(self, device, info, location, private_key):
        self.device, self.info, self.location = device, info, location
        self.private_key = private_key
        self.vapid_private_key = _b64(private_key.private_numbers().private_value.to_bytes(32, "big"))
        self.vapid_private_key_pem = private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        self.vapid_claims = {"sub": "mailto:huddle-pytest@push.example.com"}

    @property
    def application_server_key(self):
        return _b64(self.private_key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))


class Huddle:
    """A Huddle server (one this plugin started, or one already running) and its admin API."""

    def __init__(self, url, admin_token, key_id="ABC123DEFG", team_id="DEF123GHIJ"):
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.http = httpx.Client(base_url=self.url, timeout=30)
        self.key_id, self.team_id = key_id, team_id
        self._token, self._token_made = None, 0.0
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.private_key_pem = self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        public = self.private_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        self._admin("PUT", f"/v1/admin/keys/{key_id}", json={"teamID": team_id, "publicKey": public.decode(), "topics": []})

    def _admin(self, method, path, **arguments):
        response = self.http.request(method, path, headers={"authorization": f"Bearer {self.admin_token}"}, **arguments)
        response.raise_for_status()
        return response

    def provider_token(self):
        """A provider token of the key this client registered, accepted by the server for any topic. Kept and
        reused for 30 minutes, as providers must: APNs (and Huddle) refuse a connection's token renewed more
        often than every 20 minutes (429 TooManyProviderTokenUpdates), and any older than an hour."""
        if self._token is None or time.monotonic() - self._token_made > 30 * 60:
            self._token = provider_token(self.private_key_pem, self.key_id, self.team_id)
            self._token_made = time.monotonic()
        return self._token

    def device(self, topic="com.example.app", categories=None, name="huddle-pytest"):
        """Registers an iPhone and installs `topic` on it."""
        registered = self.http.post("/v1/devices", json={"name": name})
        registered.raise_for_status()
        token, secret = registered.json()["token"], registered.json()["secret"]
        installed = self.http.put(f"/v1/devices/{token}/apps/{topic}", headers={"authorization": f"Bearer {secret}"},
                                  json={"categories": categories or []})
        installed.raise_for_status()
        return Device(self, token, secret, topic, installed.json()["fcmToken"], installed.json()["expoPushToken"])

    def android_device(self, package="com.example.android", channels=None, android_version=15, name="huddle-pytest"):
        """Registers an Android phone and installs `package` with its notification channels (default: one, "default")."""
        registered = self.http.post("/v1/devices", json={"name": name, "platform": "android", "androidVersion": android_version})
        registered.raise_for_status()
        token, secret = registered.json()["token"], registered.json()["secret"]
        installed = self.http.put(f"/v1/devices/{token}/apps/{package}", headers={"authorization": f"Bearer {secret}"},
                                  json={"channels": channels or [{"id": "default", "name": "Default", "importance": "default"}]})
        installed.raise_for_status()
        return Device(self, token, secret, package, installed.json()["fcmToken"], installed.json()["expoPushToken"])

    def web_push_subscription(self, device=None, origin="https://app.example.com", service=None, name=None,
                              service_worker_shows_notifications=True):
        """A web app at `origin` on `device` (by default a new iPhone, whose Safari is Apple's push service) subscribed
        with a new application server key; `service` imitates another push service (apple, fcm, mozilla)."""
        device = device or self.device()
        key = ec.generate_private_key(ec.SECP256R1())
        body = {"origin": origin, "serviceWorkerShowsNotifications": service_worker_shows_notifications,
                "applicationServerKey": _b64(key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))}
        if service:
            body["service"] = service
        if name:
            body["name"] = name
        response = self.http.post(f"/v1/devices/{device.token}/web-push/subscriptions", headers={"authorization": f"Bearer {device.secret}"},
                                  json=body)
        response.raise_for_status()
        return WebPushSubscription(device, response.json(), response.headers["location"], key)

    def service_account(self, project="huddle-pytest"):
        """A service account's key file (a dict, as `firebase_admin.credentials.Certificate` takes it) whose key is
        registered with the server and whose `token_uri` is the server's: Google's Admin SDKs authenticate with it."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        key_id = _b64(key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))[-40:]
        key_id = "".join(character for character in key_id if character.isalnum())
        email = f"huddle@{project}.iam.gserviceaccount.com"
        public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        self._admin("PUT", f"/v1/admin/service-accounts/{key_id}", json={"project": project, "clientEmail": email, "publicKey": public})
        private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        return {"type": "service_account", "project_id": project, "private_key_id": key_id, "private_key": private, "client_email": email,
                "client_id": key_id, "token_uri": f"{self.url}/token", "universe_domain": "googleapis.com"}

    def expo_client(self, **options):
        """A `PushClient` of Expo's Python server SDK (exponent_server_sdk) that sends to this server: only its `host`
        changes. Devices' apps give their `expo_token`."""
        try:
            from exponent_server_sdk import PushClient
        except ImportError as missing:
            raise ImportError("huddle_expo needs Expo's server SDK: pip install exponent_server_sdk") from missing
        return PushClient(host=self.url, **options)

    def fcm_url(self):
        """What `firebase_admin.messaging._MessagingService.FCM_URL` is set to so that the Python Admin SDK sends here."""
        return self.url + "/v1/projects/{0}/messages:send"

    def firebase_app(self, project="huddle-pytest", name=None):
        """An App of Google's Admin SDK for Python (firebase_admin) that talks to this server only: its credentials are
        a service account of this server (`service_account`), its messages go to this server's `messages:send`, and its
        topic subscriptions to this server's registrations. Without `name` it is the default app, the one
        `messaging.send(message)` uses when given no `app`; a process holds one default app at a time, so delete it
        (`delete_firebase_app`) before making the next. The `huddle_firebase_app` fixture does both for a test."""
        try:
            import firebase_admin
            from firebase_admin import credentials, messaging
        except ImportError as error:
            raise RuntimeError("a Firebase app needs Google's Admin SDK: pip install firebase-admin (or 'huddle-pytest[fcm]')") from error
        try:
            app = firebase_admin.initialize_app(credentials.Certificate(self.service_account(project)), **({"name": name} if name else {}))
        except ValueError as error:
            raise RuntimeError(f"{error} Delete it first (huddle_pytest.delete_firebase_app), or give a name of its own: "
                               "huddle.firebase_app(name=...)") from error
        # Set on this app's own service rather than on the SDK's class, so that apps of other servers (or of Google) in
        # the same process keep their addresses. The class reads them once, when the app's service is made: here.
        service = messaging._get_messaging_service(app)
        service._fcm_url = self.fcm_url().format(project)
        service._fcm_topic_url = f"{self.url}/v1/projects/{project}/registrations"
        return app

    def push(self, device, payload, push_type="alert", collapse_id=None, apns_id=None):
        """Pushes as a provider does (HTTP/1.1 here; any APNs client works as well); returns the response."""
        headers = {"apns-topic": device.topic, "apns-push-type": push_type, "authorization": f"bearer {self.provider_token()}"}
        if collapse_id:
            headers["apns-collapse-id"] = collapse_id
        if apns_id:
            headers["apns-id"] = apns_id
        return self.http.post(f"/3/device/{device.token}", headers=headers, content=json.dumps(payload))

    def requests(self, wait=None, count=1, **filters):
        """The provider requests the server received, newest first, with the inspector's filters (device, topic,
        status, reason, push_type, apns_id); with `wait` (seconds), once `count` of them came, else WaitTimedOut."""
        params = {name.replace("_", "-"): value for name, value in filters.items() if value is not None}
        if wait is not None:
            params.update(wait=math.ceil(wait), count=count, limit=max(count, 100))
        answer = self._admin("GET", "/v1/admin/requests", params=params, timeout=(wait or 0) + 30).json()
        if wait is not None and answer["wait"]["timedOut"]:
            raise WaitTimedOut(f"{answer['wait']['found']} of the {count} requests waited for ({params}) came within {wait} s")
        return answer["requests"]

    def reset(self):
        """Forgets the request history and removes every device: the next test starts from a clean server."""
        self._admin("DELETE", "/v1/admin/requests")
        self._admin("DELETE", "/v1/admin/devices")

    def close(self):
        self.http.close()


def delete_firebase_app(app):
    """Deletes a firebase_admin App, from a thread of its own: the SDK closes its async HTTP client with asyncio.run,
    which refuses to run in a thread whose event loop is running (as under playwright's synchronous API or
    pytest-asyncio)."""
    import threading

    import firebase_admin

    failures = []

    def delete():
        try:
            firebase_admin.delete_app(app)
        except BaseException as error:  # raised again in the caller's thread
            failures.append(error)

    deleting = threading.Thread(target=delete, name="huddle-pytest delete_app")
    deleting.start()
    deleting.join()
    if failures:
        raise failures[0]
