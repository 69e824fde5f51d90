"""Certificate authentication (issue 29, item 3): `huddle certs` makes a local authority and provider certificates
with Apple's extensions; `huddle serve --client-ca` asks TLS clients for one, verifies it, and holds each request
to Apple's rules (its topics, the one-topic default, MissingTopic, BadCertificateEnvironment), while token
authentication keeps working on the same port. Driven with aioapns (client_cert) and apns2 (a certificate file),
and httpx where a status must be read exactly."""

import asyncio
import json
import pathlib
import shutil
import ssl
import subprocess
import uuid

import aioapns
import aioapns.connection
import apns2.client
import apns2.credentials
import apns2.errors
import apns2.payload
import httpx
import pytest
import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from hyper.tls import init_context

from conftest import ADMIN_TOKEN, HUDDLE, KEY_ID, TEAM_ID, TOPIC, Server, read_center, register_device, register_key
from jwt_tokens import token

PRODUCTION = "api.push.apple.com"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
TOPICS_OID = "1.2.840.113635.100.6.3.6"


def certs(*arguments):
    return subprocess.run([str(HUDDLE), "certs", *arguments], capture_output=True, text=True, timeout=60)


def issue(directory, name, *topics, environment="both", authority="ca", password="secret"):
    arguments = ["issue", "--ca-directory", str(directory / authority), "--environment", environment, "--password", password,
                 "--out", str(directory / name)]
    for topic in topics:
        arguments += ["--topic", topic]
    made = certs(*arguments)
    assert made.returncode == 0, made.stderr
    return str(directory / f"{name}.pem")


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    directory = tmp_path_factory.mktemp("certificates")
    for authority in ("ca", "other-ca"):
        made = certs("ca", "--directory", str(directory / authority))
        assert made.returncode == 0, made.stderr
    return {
        "directory": directory,
        "single": issue(directory, "single", TOPIC),
        "multi": issue(directory, "multi", TOPIC, f"{TOPIC}.voip"),
        "development": issue(directory, "development", TOPIC, environment="development"),
        "stranger": issue(directory, "stranger", TOPIC, authority="other-ca"),
    }


@pytest.fixture(scope="module")
def server(workdir, keys, certificates):
    server = Server(workdir, tls=True, database=str(pathlib.Path(workdir) / "certificates.sqlite"),
                    extra=("--client-ca", str(certificates["directory"] / "ca" / "ca.pem")))
    register_key(server, keys[2])
    yield server
    server.stop()


def client(server, certificate):
    context = ssl.create_default_context(cafile=str(server.cert))
    context.load_cert_chain(certificate)
    return httpx.Client(http1=False, http2=True, verify=context)


def push(http, server, device, topic=TOPIC, host=None, push_type=None, jwt=None):
    headers = ({"apns-topic": topic} if topic else {}) | ({"host": host} if host else {}) \
        | ({"apns-push-type": push_type} if push_type else {}) | ({"authorization": f"bearer {jwt}"} if jwt else {})
    return http.post(f"{server.url}/3/device/{device['token']}", headers=headers, json={"aps": {"alert": "certified"}})


def test_the_authority_is_made_once_and_its_certificates_read_everywhere(certificates):
    directory = certificates["directory"]
    again = certs("ca", "--directory", str(directory / "ca"))
    assert again.returncode == 0 and "already" in again.stdout
    assert (directory / "ca" / "ca-key.pem").stat().st_mode & 0o077 == 0
    # Apple's extensions, as client libraries read them.
    pem = pathlib.Path(certificates["multi"]).read_bytes()
    certificate = x509.load_pem_x509_certificate(pem)
    assert certificate.subject.get_attributes_for_oid(x509.NameOID.USER_ID)[0].value == TOPIC
    oids = {extension.oid.dotted_string for extension in certificate.extensions}
    assert {"1.2.840.113635.100.6.3.1", "1.2.840.113635.100.6.3.2", TOPICS_OID} <= oids
    topics = certificate.extensions.get_extension_for_oid(x509.ObjectIdentifier(TOPICS_OID)).value.value
    assert TOPIC.encode() in topics and f"{TOPIC}.voip".encode() in topics and b"voip" in topics
    development = x509.load_pem_x509_certificate(pathlib.Path(certificates["development"]).read_bytes())
    assert "1.2.840.113635.100.6.3.2" not in {e.oid.dotted_string for e in development.extensions}
    # The .p12: Python's cryptography and openssl read it with its password, and its key is the certificate's.
    p12 = (directory / "multi.p12").read_bytes()
    key, read, _ = pkcs12.load_key_and_certificates(p12, b"secret")
    assert read == certificate and key.public_key() == certificate.public_key()
    with pytest.raises(ValueError):
        pkcs12.load_key_and_certificates(p12, b"wrong")
    if shutil.which("openssl"):
        dumped = subprocess.run(["openssl", "pkcs12", "-in", str(directory / "multi.p12"), "-passin", "pass:secret", "-nodes", "-info"],
                                capture_output=True, text=True, timeout=30)
        assert dumped.returncode == 0, dumped.stderr
        assert "PBES2" in dumped.stderr and "BEGIN PRIVATE KEY" in dumped.stdout and "BEGIN CERTIFICATE" in dumped.stdout
    refused = certs("issue", "--ca-directory", str(directory / "ca"), "--topic", "not a topic", "--out", str(directory / "bad"))
    assert refused.returncode == 64 and "is not a topic" in refused.stderr


def test_aioapns_pushes_with_a_client_certificate(server, certificates, keys):
    device = register_device(server)
    aioapns.connection.APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
    aioapns.connection.APNsDevelopmentClientProtocol.APNS_PORT = server.port

    async def send():
        apns = aioapns.APNs(client_cert=certificates["single"], use_sandbox=True,
                            ssl_context=ssl.create_default_context(cafile=str(server.cert)))
        accepted = await apns.send_notification(aioapns.NotificationRequest(
            device_token=device["token"], notification_id=str(uuid.uuid4()),
            message={"aps": {"alert": {"title": "Certified", "body": "by a client certificate"}}}))
        other = await apns.send_notification(aioapns.NotificationRequest(
            device_token=device["token"], message={"aps": {"alert": "x"}}, apns_topic="com.example.other"))
        return accepted, other

    accepted, other = asyncio.run(send())
    assert accepted.is_successful, accepted.description
    assert not other.is_successful and other.status == "400" and other.description == "TopicDisallowed"
    assert "by a client certificate" in json.dumps(read_center(server, device))


class LocalAPNsClient(apns2.client.APNsClient):
    LIVE_SERVER = SANDBOX_SERVER = "localhost"


def apns2_client(server, certificate):
    LocalAPNsClient.DEFAULT_PORT = server.port
    # apns2's CertificateCredentials trusts certifi's roots only; the same credentials, trusting the test server.
    credentials = apns2.credentials.Credentials(init_context(cert_path=str(server.cert), cert=certificate))
    return LocalAPNsClient(credentials=credentials, use_sandbox=True)


def test_apns2_with_a_certificate_file_topic_default_and_missing_topic(server, certificates):
    device = register_device(server)
    payload = apns2.payload.Payload(alert="from apns2")
    # One topic: a push without apns-topic goes to it.
    apns2_client(server, certificates["single"]).send_notification(device["token"], payload)
    # Several: apns-topic is required.
    with pytest.raises(apns2.errors.MissingTopic):
        apns2_client(server, certificates["multi"]).send_notification(device["token"], payload)
    apns2_client(server, certificates["multi"]).send_notification(device["token"], payload, topic=TOPIC)
    with pytest.raises(apns2.errors.TopicDisallowed):
        apns2_client(server, certificates["single"]).send_notification(device["token"], payload, topic=f"{TOPIC}.voip")


def test_a_certificate_answers_only_in_its_environments(server, certificates):
    device = register_device(server)
    production = register_device(server)
    with client(server, certificates["development"]) as development:
        refused = push(development, server, device, host=PRODUCTION)
        assert refused.status_code == 403 and refused.json()["reason"] == "BadCertificateEnvironment"
        assert "development only" in refused.json()["description"]
        assert push(development, server, device).status_code == 200
    # A universal certificate goes to either (the device's own environment decides the rest).
    with client(server, certificates["single"]) as universal:
        assert push(universal, server, device).status_code == 200
        assert push(universal, server, production, host=PRODUCTION).json()["reason"] == "BadDeviceToken"


def test_live_activity_pushes_take_tokens(server, certificates):
    device = register_device(server)
    with client(server, certificates["single"]) as http:
        refused = push(http, server, device, topic=f"{TOPIC}.push-type.liveactivity", push_type="liveactivity")
    assert refused.status_code == 400 and refused.json()["reason"] == "TopicDisallowed"
    assert "token authentication" in refused.json()["description"]


def test_a_certificate_manages_its_app_s_channels_and_broadcasts_on_them(server, certificates):
    """Apple: a broadcast is authenticated "using either the provided authentication token or your server's
    certificate"; the channel API likewise. A certificate serves the apps it lists, in its environments."""
    with client(server, certificates["single"]) as http:
        created = http.post(f"{server.url}/1/apps/{TOPIC}/channels", json={"message-storage-policy": 0, "push-type": "LiveActivity"})
        assert created.status_code == 201, created.text
        channel = created.headers["apns-channel-id"]
        sent = http.post(f"{server.url}/4/broadcasts/apps/{TOPIC}", content=json.dumps({"aps": {"timestamp": 1, "event": "update", "content-state": {}}}),
                         headers={"apns-channel-id": channel, "apns-push-type": "liveactivity", "apns-priority": "5"})
        assert sent.status_code == 200, sent.text
        other = http.get(f"{server.url}/1/apps/com.example.other/all-channels")
        assert other.status_code == 400 and other.json()["reason"] == "TopicDisallowed"
    with client(server, certificates["development"]) as http:
        refused = http.get(f"{server.url}/1/apps/{TOPIC}/all-channels", headers={"host": "api-manage-broadcast.push.apple.com"})
        assert refused.status_code == 403 and refused.json()["reason"] == "BadCertificateEnvironment"


def test_a_certificate_from_another_authority_fails_the_handshake(server, certificates):
    device = register_device(server)
    with pytest.raises(httpx.TransportError):
        with client(server, certificates["stranger"]) as stranger:
            push(stranger, server, device)
    # The server goes on serving.
    with client(server, certificates["single"]) as http:
        assert push(http, server, device).status_code == 200


def signed_by_the_authority(directory, name, apple_extensions=True, expired=False):
    """A certificate the trusted authority signed that `huddle certs issue` would not make: without Apple's
    extensions, or expired."""
    authority = x509.load_pem_x509_certificate((directory / "ca" / "ca.pem").read_bytes())
    authority_key = serialization.load_pem_private_key((directory / "ca" / "ca-key.pem").read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = (now - datetime.timedelta(days=3), now - datetime.timedelta(days=1)) if expired else (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1))
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, name)]))
               .issuer_name(authority.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(end)
               .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
    if apple_extensions:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier("1.2.840.113635.100.6.3.1"), b"\x05\x00"), critical=False)
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(TOPICS_OID), b"\x30\x03\x0c\x01\x2a"), critical=False)
    certificate = builder.sign(authority_key, hashes.SHA256())
    path = directory / f"{name}.pem"
    path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return str(path)


def test_a_certificate_without_apples_extensions_is_a_bad_certificate(server, certificates):
    device = register_device(server)
    with client(server, signed_by_the_authority(certificates["directory"], "plain", apple_extensions=False)) as http:
        refused = push(http, server, device)
    assert refused.status_code == 403 and refused.json()["reason"] == "BadCertificate"
    assert "environment extensions" in refused.json()["description"]
    # A topics extension that holds no topic ("*") is refused as such, not crashed on.
    with client(server, signed_by_the_authority(certificates["directory"], "starred")) as http:
        refused = push(http, server, device)
    assert refused.status_code == 403 and refused.json()["reason"] == "BadCertificate"
    assert "not a topic" in refused.json()["description"]


def test_an_expired_certificate_fails_the_handshake(server, certificates):
    device = register_device(server)
    with pytest.raises(httpx.TransportError):
        with client(server, signed_by_the_authority(certificates["directory"], "expired", expired=True)) as http:
            push(http, server, device)


def test_tokens_still_work_on_the_same_port_and_the_inspector_says_which_authenticated(server, certificates, keys):
    device = register_device(server)
    with httpx.Client(http1=False, http2=True, verify=ssl.create_default_context(cafile=str(server.cert))) as http:
        assert push(http, server, device, jwt=token(keys[1], KEY_ID, TEAM_ID)).status_code == 200
        refused = push(http, server, device)
        assert refused.status_code == 403 and refused.json()["reason"] == "MissingProviderToken"
    with client(server, certificates["multi"]) as http:
        # A certificate's connection needs no token; one sent anyway is not looked at.
        assert push(http, server, device, topic=f"{TOPIC}.voip", push_type="voip").status_code == 200
        assert push(http, server, device, jwt="not.a.token").status_code == 200
    with httpx.Client(verify=ssl.create_default_context(cafile=str(server.cert))) as http:
        records = http.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"device": device["token"]}).json()["requests"]
    by_authentication = {}
    for record in records:
        by_authentication.setdefault(record["authentication"], []).append(record)
    assert len(by_authentication["token"]) == 1 and len(by_authentication["none"]) == 1
    certified = by_authentication["certificate"]
    assert len(certified) == 2 and certified[0]["certificate"]["topics"] == [TOPIC, f"{TOPIC}.voip"]
    assert "Apple Push Services: com.example.chat" in certified[0]["certificate"]["subject"]


def test_client_ca_needs_tls(tmp_path, certificates):
    refused = subprocess.run([str(HUDDLE), "serve", "--client-ca", str(certificates["directory"] / "ca" / "ca.pem")],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 64 and "--tls-certificate" in refused.stderr
