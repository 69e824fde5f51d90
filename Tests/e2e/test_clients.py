"""Real APNs clients against `huddle serve`: each delivers, then the center is read back."""
import asyncio
import json
import socket
import ssl
import subprocess
import uuid

import aioapns
import aioapns.connection
import httpx
import pytest

from conftest import HUDDLE, KEY_ID, TEAM_ID, TOPIC, Server, read_center, register_device
from jwt_tokens import token


def summary_of(center, group_id):
    return next(group for group in center["groups"] if group["id"] == group_id)


def test_aioapns_over_tls_without_alpn(tls_server, keys):
    """aioapns offers no ALPN and sends the HTTP/2 preface at once; it matches replies by apns-id."""
    device = register_device(tls_server)
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = "localhost"
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = tls_server.port

    async def send_all():
        apns = aioapns.APNs(
            key=keys[1], key_id=KEY_ID, team_id=TEAM_ID, topic=TOPIC, use_sandbox=False,
            ssl_context=ssl.create_default_context(cafile=str(tls_server.cert)))
        results = []
        for name in ["Teja", "Michele", "Kritarth"]:
            request = aioapns.NotificationRequest(
                device_token=device["token"], notification_id=str(uuid.uuid4()), push_type=aioapns.PushType.ALERT,
                message={"aps": {"alert": {"title": name, "body": "hi", "summary-arg": name}, "thread-id": "team", "category": "msg"}})
            results.append(await apns.send_notification(request))
        bad = aioapns.NotificationRequest(device_token="0" * 64, message={"aps": {"alert": "x"}}, push_type=aioapns.PushType.ALERT)
        results.append(await apns.send_notification(bad))
        return results

    results = asyncio.run(send_all())
    assert [result.is_successful for result in results] == [True, True, True, False]
    assert results[3].description == "BadDeviceToken"
    group = summary_of(read_center(tls_server, device), f"{TOPIC}/team")
    assert group["count"] == 3
    assert group["summary"] == "2 more messages from Michele and Teja"


def test_a_refusal_is_one_data_frame_that_ends_its_stream(plain_server):
    """APNs sends an error's JSON and the end of the stream in one DATA frame. aioapns reads every DATA frame as the
    whole body: an empty one after it makes aioapns fail and drop the connection with every push still on it."""
    import h2.connection
    import h2.events

    def frames_of(path, headers, body=b""):
        with socket.create_connection(("127.0.0.1", plain_server.port)) as connection:
            client = h2.connection.H2Connection()
            client.initiate_connection()
            client.send_headers(1, [(":method", "POST"), (":path", path), (":scheme", "http"), (":authority", "localhost"), *headers],
                                end_stream=False)
            client.send_data(1, body, end_stream=True)
            connection.sendall(client.data_to_send())
            data_frames = []
            while True:
                for event in client.receive_data(connection.recv(65535)):
                    if isinstance(event, h2.events.DataReceived):
                        data_frames.append((event.data, event.stream_ended is not None))
                        client.acknowledge_received_data(event.flow_controlled_length, 1)
                    if isinstance(event, h2.events.StreamEnded):
                        return data_frames
                connection.sendall(client.data_to_send())

    refused = frames_of(f"/3/device/{'ab' * 32}", [("apns-topic", TOPIC)], b'{"aps": {}}')
    assert len(refused) == 1 and refused[0][1], refused
    assert json.loads(refused[0][0])["reason"] == "MissingProviderToken"
    # So is a refused broadcast, which the router answers.
    broadcast = frames_of(f"/4/broadcasts/apps/{TOPIC}", [("apns-push-type", "liveactivity")], b'{"aps": {}}')
    assert len(broadcast) == 1 and broadcast[0][1] and json.loads(broadcast[0][0])["reason"] == "MissingProviderToken"


def test_httpx_http2_with_alpn(tls_server, keys):
    device = register_device(tls_server)
    jwt = token(keys[1], KEY_ID, TEAM_ID, iat_kind="float")
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=str(tls_server.cert))) as client:
        apns_id = str(uuid.uuid4())
        response = client.post(
            f"{tls_server.url}/3/device/{device['token']}", content=json.dumps({"aps": {"alert": {"title": "Podcasts", "body": "2 new episodes"}}}),
            headers={"authorization": f"bearer {jwt}", "apns-topic": TOPIC, "apns-push-type": "alert", "apns-id": apns_id,
                     "apns-collapse-id": "episodes"})
        assert response.http_version == "HTTP/2"
        assert response.status_code == 200
        assert response.headers["apns-id"] == apns_id
        assert response.content == b""
    center = read_center(tls_server, device)
    assert [n["id"] for group in center["groups"] for n in group["notifications"]] == ["episodes"]


def test_curl_http1_and_h2c(plain_server, keys):
    device = register_device(plain_server)
    jwt = token(keys[1], KEY_ID, TEAM_ID, iat_kind="string")
    for flag, body in [("--http1.1", "over HTTP/1.1"), ("--http2-prior-knowledge", "over h2c")]:
        result = subprocess.run(
            ["curl", "-s", "-i", flag, "-X", "POST", f"{plain_server.url}/3/device/{device['token']}",
             "-H", f"authorization: bearer {jwt}", "-H", f"apns-topic: {TOPIC}",
             "-d", json.dumps({"aps": {"alert": body}})],
            capture_output=True, text=True, timeout=30)
        assert result.stdout.splitlines()[0] in ("HTTP/1.1 200 OK", "HTTP/2 200 "), result.stdout
        assert "apns-id:" in result.stdout.lower()
    bodies = [n["body"] for group in read_center(plain_server, device)["groups"] for n in group["notifications"]]
    assert bodies == ["over h2c", "over HTTP/1.1"]


def test_huddle_send(tls_server, keys, workdir, tmp_path):
    """`huddle send` signs a token from the .p8 file and talks HTTP/2 over TLS."""
    device = register_device(tls_server)
    payload = tmp_path / "push.json"
    payload.write_text(json.dumps({"aps": {"alert": {"title": "Huddle", "body": "sent by huddle send"}}}))
    result = subprocess.run(
        [str(HUDDLE), "send", str(payload), "--url", tls_server.url, "--device", device["token"], "--topic", TOPIC,
         "--key", str(keys[0]), "--team-id", TEAM_ID, "--ca-certificate", str(tls_server.cert)],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("200 HTTP/2.0 apns-id: ")
    refused = subprocess.run(
        [str(HUDDLE), "send", str(payload), "--url", tls_server.url, "--device", device["token"], "--topic", "com.example.nope",
         "--key", str(keys[0]), "--team-id", TEAM_ID, "--ca-certificate", str(tls_server.cert)],
        capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1
    # The key may send to com.example.chat only: authentication refuses it before the device is looked at.
    assert "403 HTTP/2.0 apns-id: " in refused.stdout and '"reason":"InvalidProviderToken"' in refused.stdout
    assert read_center(tls_server, device)["groups"][0]["notifications"][0]["body"] == "sent by huddle send"


def test_connections_that_never_speak_do_not_hold_up_a_shutdown(tmp_path):
    """A client that connects and closes (or half-closes) before sending a byte, or keeps its connection open
    and silent: the server still stops on SIGTERM, exiting 0 (Server.stop waits for the exit with a deadline,
    and fails the test if it does not come)."""
    server = Server(str(tmp_path), tls=False)
    silent = socket.create_connection(("127.0.0.1", server.port))
    half = socket.create_connection(("127.0.0.1", server.port))
    try:
        half.shutdown(socket.SHUT_WR)
        closed = socket.create_connection(("127.0.0.1", server.port))
        closed.close()
        server.stop()
        assert server.process.returncode == 0, f"huddle serve exited with {server.process.returncode}; see {server.log_path}"
    finally:
        silent.close()
        half.close()
        server.stop()
