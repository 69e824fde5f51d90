"""Fixtures for end-to-end tests: a real `huddle serve` process, keys, devices.

The Swift build puts the executable at .build/debug/huddle; scripts/test builds it before running these.
"""
import json
import os
import pathlib
import socket
import ssl
import subprocess
import time
import uuid

import httpx
import pytest
from playwright.sync_api import sync_playwright
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from cryptography import x509
import datetime
import ipaddress

ROOT = pathlib.Path(__file__).resolve().parents[2]
# HUDDLE_BINARY picks another build (a release build, to measure the streams' rate).
HUDDLE = pathlib.Path(os.environ.get("HUDDLE_BINARY", ROOT / ".build" / "debug" / "huddle"))
# The huddle-pytest plugin (clients/python, installed in .venv) starts this binary too.
os.environ.setdefault("HUDDLE_BINARY", str(HUDDLE))
ADMIN_TOKEN = "e2e-admin-token"
KEY_ID = "ABC123DEFG"
TEAM_ID = "DEF123GHIJ"
TOPIC = "com.example.chat"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"huddle serve exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"huddle serve did not listen on {port}")


class Server:
    """A running `huddle serve`, its URLs and its log."""

    def __init__(self, directory, tls, database=None, extra=()):
        self.port = free_port()
        self.tls = tls
        self.database = database or str(pathlib.Path(directory) / "huddle.sqlite")
        self.log_path = pathlib.Path(directory) / f"serve-{self.port}.log"
        self.cert = pathlib.Path(directory) / "server.crt"
        arguments = [str(HUDDLE), "serve", "--port", str(self.port), "--database", self.database, "--admin-token", ADMIN_TOKEN, *extra]
        if tls:
            arguments += ["--tls-certificate", str(self.cert), "--tls-key", str(pathlib.Path(directory) / "server.key")]
        self.arguments = arguments
        self.start()

    def start(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(self.arguments, stdout=self.log, stderr=subprocess.STDOUT)
        wait_for_port(self.port, self.process)

    @property
    def url(self):
        return f"{'https' if self.tls else 'http'}://localhost:{self.port}" if self.tls else f"http://127.0.0.1:{self.port}"

    def stop(self, signal_kill=False):
        if self.process.poll() is None:
            if signal_kill:
                self.process.kill()
            else:
                self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
                raise AssertionError("huddle serve did not stop within 20 s of SIGTERM")
            # A graceful stop is a clean exit: not a crash of a shutdown that waited on a connection.
            if not signal_kill:
                assert self.process.returncode == 0, f"huddle serve exited with {self.process.returncode} on SIGTERM; see {self.log_path}"
        self.log.close()


def write_certificate(directory):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, __import__("cryptography.hazmat.primitives.hashes", fromlist=["SHA256"]).SHA256())
    )
    (pathlib.Path(directory) / "server.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (pathlib.Path(directory) / "server.crt").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))


def signing_key(directory, key_id=KEY_ID):
    """An Apple-style signing key: AuthKey_KEYID.p8 (PKCS #8) and its public half."""
    key = ec.generate_private_key(ec.SECP256R1())
    p8 = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path = pathlib.Path(directory) / f"AuthKey_{key_id}.p8"
    path.write_bytes(p8)
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return path, p8.decode(), public.decode()


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    """The session's directory (the shared servers' certificate, databases and logs): one of pytest's
    temporary directories, which pytest removes (keeping the last few runs' for a look after a failure)."""
    directory = str(tmp_path_factory.mktemp("huddle-e2e"))
    write_certificate(directory)
    return directory


def verification(server):
    return ssl.create_default_context(cafile=str(server.cert)) if server.tls else True


def register_key(server, public_pem, key_id=KEY_ID, team_id=TEAM_ID, topics=(TOPIC,)):
    with httpx.Client(verify=verification(server)) as client:
        response = client.put(f"{server.url}/v1/admin/keys/{key_id}", headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
                              json={"teamID": team_id, "publicKey": public_pem, "topics": list(topics)})
        assert response.status_code == 200, response.text


def register_device(server, topic=TOPIC, categories=None):
    with httpx.Client(verify=verification(server)) as client:
        device = client.post(f"{server.url}/v1/devices", json={"name": "e2e"}).json()
        response = client.put(f"{server.url}/v1/devices/{device['token']}/apps/{topic}",
                              headers={"authorization": f"Bearer {device['secret']}"},
                              json={"categories": categories or [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]})
        assert response.status_code == 200, response.text
        return device


ANDROID_PACKAGE = "com.example.android.chat"
CHATS_CHANNEL = {"id": "chats", "name": "Chats", "importance": "high"}


def register_android_phone(server, apps=None, name="Pixel"):
    """An Android 15 phone and its apps, each package with the body it is installed with (by default ANDROID_PACKAGE,
    named Chat, with one channel of high importance): the device, its Authorization header, and each app as its
    installation answered it (its fcmToken, its fid)."""
    with httpx.Client(verify=verification(server)) as client:
        device = client.post(f"{server.url}/v1/devices", json={"name": name, "platform": "android", "androidVersion": 15}).json()
        assert device["platform"] == "android" and device["androidVersion"] == 15, device
        auth = {"authorization": f"Bearer {device['secret']}"}
        installed = {}
        for package, body in (apps or {ANDROID_PACKAGE: {"name": "Chat", "channels": [CHATS_CHANNEL]}}).items():
            response = client.put(f"{server.url}/v1/devices/{device['token']}/apps/{package}", headers=auth, json=body)
            assert response.status_code == 200, response.text
            installed[package] = response.json()
        return device, auth, installed


def installed_app(server, device, topic=TOPIC):
    """An app of a device as the device API lists it (its fcmToken, its fid, …)."""
    with httpx.Client(verify=verification(server)) as client:
        apps = client.get(f"{server.url}/v1/devices/{device['token']}/apps", headers={"authorization": f"Bearer {device['secret']}"}).json()
        return next(app for app in apps if app["topic"] == topic)


def read_center(server, device, **query):
    with httpx.Client(verify=verification(server)) as client:
        response = client.get(f"{server.url}/v1/devices/{device['token']}/center", params=query,
                              headers={"authorization": f"Bearer {device['secret']}"})
        assert response.status_code == 200, response.text
        return response.json()


@pytest.fixture(scope="session")
def keys(workdir):
    return signing_key(workdir)


@pytest.fixture(scope="session")
def tls_server(workdir, keys):
    server = Server(workdir, tls=True, database=str(pathlib.Path(workdir) / "tls.sqlite"))
    register_key(server, keys[2])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def plain_server(workdir, keys):
    server = Server(workdir, tls=False, database=str(pathlib.Path(workdir) / "plain.sqlite"))
    register_key(server, keys[2])
    yield server
    server.stop()


@pytest.fixture
def postgres_database():
    """A new, empty PostgreSQL database on the server HUDDLE_TEST_POSTGRES_URL names (scripts/test starts a
    throwaway one), dropped afterwards."""
    server = os.environ.get("HUDDLE_TEST_POSTGRES_URL")
    if not server:
        pytest.fail('HUDDLE_TEST_POSTGRES_URL is not set: start a throwaway server with eval "$(scripts/postgres start)", '
                    "or run scripts/test, which does")
    name = "huddle_e2e_" + uuid.uuid4().hex
    subprocess.run(["psql", "-q", server, "-c", f"CREATE DATABASE {name}"], check=True)
    base, _, query = server.partition("?")
    yield base.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")
    subprocess.run(["psql", "-q", server, "-c", f"DROP DATABASE {name} WITH (FORCE)"], check=False)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """A store for a server: a SQLite file, then a new PostgreSQL database (the test runs on each)."""
    if request.param == "sqlite":
        return str(tmp_path / "huddle.sqlite")
    return request.getfixturevalue("postgres_database")


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium (scripts/test-env installs it), driven by playwright; playwright's own browser download
    is not used."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


# FCM (issue 42): a service account from `huddle fcm service-account`, and Google's Admin SDK for Python pointed at the
# shared plain server, as test_fcm.py and test_web_android.py send with it.
FCM_PROJECT = "huddle-e2e"


@pytest.fixture(scope="session")
def fcm_account_file(plain_server, tmp_path_factory):
    path = tmp_path_factory.mktemp("fcm") / "service-account.json"
    subprocess.run(
        [str(HUDDLE), "fcm", "service-account", "--project", FCM_PROJECT, "--server", plain_server.url, "--admin-token", ADMIN_TOKEN,
         "--output", str(path)], check=True, capture_output=True)
    return path


@pytest.fixture
def fcm_app(plain_server, fcm_account_file):
    """An Admin SDK app from the key file; only its addresses change (README, "Firebase Cloud Messaging")."""
    import threading
    import firebase_admin
    from firebase_admin import credentials, messaging

    messaging._MessagingService.FCM_URL = plain_server.url + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(str(fcm_account_file)), name=f"e2e-{uuid.uuid4()}")
    messaging._get_messaging_service(app)._fcm_topic_url = f"{plain_server.url}/v1/projects/{FCM_PROJECT}/registrations"
    yield app
    # The SDK closes its async client with asyncio.run, which refuses to run in a thread whose event loop is running
    # (as playwright's synchronous API keeps one): it is deleted from a thread of its own.
    deleting = threading.Thread(target=firebase_admin.delete_app, args=(app,))
    deleting.start()
    deleting.join()

