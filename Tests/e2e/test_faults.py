"""Faults on demand (issue 29): an admin makes chosen pushes fail as APNs fails, so that a provider's retry and
back-off code meets every failure before production does. Real sockets, real clients (httpx over HTTP/1.1 and
HTTP/2, the h2 library for the GOAWAY frame itself)."""

import concurrent.futures
import json
import os
import re
import select
import socket
import subprocess
import time
import uuid

import h2.config
import h2.connection
import h2.errors
import h2.events
import httpx
import pytest

import sse
from conftest import ADMIN_TOKEN, HUDDLE, KEY_ID, ROOT, TEAM_ID, TOPIC, Server, read_center, register_device, register_key, verification

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    yield server
    server.stop()


def add_fault(server, **fault):
    response = httpx.post(f"{server.url}/v1/admin/faults", headers=ADMIN, json=fault, verify=verification(server))
    assert response.status_code == 201, response.text
    return response.json()


def push(server, device, body="hi", client=httpx):
    return client.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC},
                       json={"aps": {"alert": {"title": "Teja", "body": body}}}, timeout=30)


def stored(server, device):
    return sum(len(group["notifications"]) for group in read_center(server, device)["groups"])


def test_the_next_pushes_to_a_device_are_unregistered_then_delivered_again(server):
    device, other = register_device(server), register_device(server)
    fault = add_fault(server, device=device["token"], reason="Unregistered", timestamp=1_700_000_000_000, count=2)
    assert fault["status"] == 410 and fault["remaining"] == 2
    answers = [push(server, device, f"n{index}") for index in range(3)]
    assert [answer.status_code for answer in answers] == [410, 410, 200]
    assert answers[0].json() == {"reason": "Unregistered", "timestamp": 1_700_000_000_000}
    # Another device is not caught, and a caught push is not stored.
    assert push(server, other).status_code == 200
    assert stored(server, device) == 1
    # Spent, the fault is gone; the inspector says which requests it caught.
    assert httpx.get(f"{server.url}/v1/admin/faults", headers=ADMIN).json() == {"faults": []}
    records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"device": device["token"]}).json()["requests"]
    faults = sorted((record["answer"]["status"], record["answer"].get("fault")) for record in records)
    assert faults == [(200, None), (410, f"fault {fault['id']}: answered 410 Unregistered"),
                      (410, f"fault {fault['id']}: answered 410 Unregistered")]


def test_racing_pushes_catch_a_counted_fault_exactly_as_often_as_asked(server):
    device = register_device(server)
    add_fault(server, reason="InternalServerError", count=5)
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(lambda index: push(server, device, f"n{index}").status_code, range(40)))
    assert statuses.count(500) == 5
    assert statuses.count(200) == 35
    assert stored(server, device) == 35


def test_a_device_pushed_to_faster_than_its_rate_is_told_too_many_requests(server):
    device, other = register_device(server), register_device(server)
    add_fault(server, device=device["token"], pushesPerSecond=3)
    with httpx.Client() as client:
        first_second = int(time.time())
        statuses = [push(server, device, f"n{index}", client).status_code for index in range(10)]
        seconds = int(time.time()) - first_second + 1
        # At most 3 go through in each second the pushes spanned, at least the first 3; the rest are refused.
        assert 3 <= statuses.count(200) <= 3 * seconds and statuses.count(429) == 10 - statuses.count(200)
        assert statuses[:3] == [200, 200, 200] or seconds > 1
        assert push(server, other, client=client).status_code == 200
    records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"status": 429}).json()["requests"]
    assert {record["answer"]["reason"] for record in records} == {"TooManyRequests"}


def test_a_delay_holds_the_answer_and_then_the_push_goes_on(server):
    device = register_device(server)
    add_fault(server, delayMilliseconds=1500, count=1)
    started = time.monotonic()
    assert push(server, device).status_code == 200
    assert time.monotonic() - started >= 1.5
    assert stored(server, device) == 1


def test_a_reset_stream_and_a_closed_connection_answer_nothing_and_the_server_goes_on(server):
    device = register_device(server)
    add_fault(server, connection="reset-stream", count=1)
    with httpx.Client(http1=False, http2=True) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            push(server, device, client=client)
    add_fault(server, connection="close", count=1)
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        push(server, device)
    assert push(server, device).status_code == 200
    records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN).json()["requests"]
    cut = [record["answer"] for record in records if record["answer"]["status"] is None]
    assert sorted(answer["fault"].split(": ")[1] for answer in cut) == ["connection closed, no answer", "stream reset, no answer"]


def test_requests_pipelined_behind_a_push_being_answered_are_not_read_past_one_read(server):
    """A client that pipelines a flood behind a push still being answered (a delay fault holds it 5 s) is read no
    further than one read's worth: the server stops reading, the socket's buffers fill (about 3 MB here) and the
    client's sending blocks, far short of the 64 MB it offers. A server that read on (tried: 17 MB taken in the 5 s)
    would hold all it read."""
    device = register_device(server)
    add_fault(server, delayMilliseconds=5000, count=1)
    body = json.dumps({"aps": {"alert": "held"}})
    head = (f"POST /3/device/{device['token']} HTTP/1.1\r\nHost: localhost\r\napns-topic: {TOPIC}\r\n"
            f"content-length: {len(body)}\r\n\r\n{body}").encode()
    flood = b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" * (64 * 1024 * 1024 // 41)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head)
        sock.setblocking(False)
        sent = 0
        # Sends until the socket takes nothing for a second: the server has stopped reading.
        while sent < len(flood):
            _, writable, _ = select.select([], [sock], [], 1)
            if not writable:
                break
            try:
                sent += sock.send(flood[sent:sent + 65536])
            except BlockingIOError:
                continue
        print(f"\npipelined bytes taken behind a push being answered: {sent}")
        assert sent < 8 * 1024 * 1024, f"the server read {sent} pipelined bytes behind a push being answered"
    assert httpx.get(f"{server.url}/health").status_code == 200


@pytest.mark.parametrize("leaving", ["reset", "close"])
def test_a_client_that_leaves_a_push_being_stored_gets_nothing_and_its_connection_goes_on(server, leaving):
    """A push held by a delay fault whose client resets its stream (HTTP/2 RST_STREAM CANCEL, sent right behind the
    request) or closes its connection meanwhile: the push was read whole, so it is still stored, as APNs may deliver
    a push whose answer it could not send; nothing is written on the reset stream, and the same connection (or, once
    closed, a new one) has its next push answered 200."""
    device = register_device(server)
    add_fault(server, delayMilliseconds=800, count=1)
    body = json.dumps({"aps": {"alert": "left"}}).encode()
    # Lower case, as the center names a notification by its apns-id.
    left_id = str(uuid.uuid4())
    # Listening before the push goes, until the change that delivers the push left behind.
    stream = sse.DeviceStream(
        server, device, until=lambda event: event.name == "change" and left_id in event.json()["delivered"]).start()

    def send_push(connection, apns_id):
        stream_id = connection.get_next_available_stream_id()
        connection.send_headers(stream_id, [(":method", "POST"), (":scheme", "http"), (":authority", "api.sandbox.push.apple.com"),
                                            (":path", f"/3/device/{device['token']}"), ("apns-topic", TOPIC), ("apns-id", apns_id)])
        connection.send_data(stream_id, body, end_stream=True)
        return stream_id

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        connection.initiate_connection()
        left = send_push(connection, left_id)
        if leaving == "close":
            sock.sendall(connection.data_to_send())
        else:
            connection.reset_stream(left, h2.errors.ErrorCodes.CANCEL)
            sock.sendall(connection.data_to_send())
            following = send_push(connection, str(uuid.uuid4()))
            sock.sendall(connection.data_to_send())
            events, status = [], None
            while status is None:
                data = sock.recv(65536)
                assert data, f"the connection closed after {events}"
                for event in connection.receive_data(data):
                    events.append(event)
                    if isinstance(event, h2.events.ResponseReceived) and event.stream_id == following:
                        status = dict(event.headers)[b":status"]
                sock.sendall(connection.data_to_send())
            assert status == b"200"
            assert not [event for event in events if getattr(event, "stream_id", None) == left], events
    if leaving == "close":
        assert push(server, device).status_code == 200
    # The push left behind is stored once its delay ends.
    received = stream.join()
    assert any(event.name == "change" and left_id in event.json()["delivered"] for event in received), received
    assert stored(server, device) == 2
    assert httpx.get(f"{server.url}/health").status_code == 200


def test_goaway_answers_shutdown_and_names_it_in_the_frame(server):
    device = register_device(server)
    add_fault(server, connection="goaway", count=1)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        connection.initiate_connection()
        body = json.dumps({"aps": {"alert": "bye"}}).encode()
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":authority", "api.sandbox.push.apple.com"),
                                         (":path", f"/3/device/{device['token']}"), ("apns-topic", TOPIC)])
        connection.send_data(stream, body, end_stream=True)
        sock.sendall(connection.data_to_send())
        status, answer, terminated, unread = None, b"", None, b""
        while terminated is None:
            data = sock.recv(65536)
            if not data:
                break
            unread += data
            # One frame at a time (a 9-byte header, then its length): h2 ends its connection at the GOAWAY and
            # refuses the frames after it (the server's graceful close sends a PING), so the test stops there.
            while terminated is None and len(unread) >= 9 and len(unread) >= 9 + int.from_bytes(unread[:3], "big"):
                size = 9 + int.from_bytes(unread[:3], "big")
                frame, unread = unread[:size], unread[size:]
                for event in connection.receive_data(frame):
                    if isinstance(event, h2.events.ResponseReceived):
                        status = dict(event.headers)[b":status"]
                    elif isinstance(event, h2.events.DataReceived):
                        answer += event.data
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        terminated = event
            if terminated is None:
                sock.sendall(connection.data_to_send())
    assert status == b"503" and json.loads(answer) == {"reason": "Shutdown"}
    assert terminated is not None and json.loads(terminated.additional_data) == {"reason": "Shutdown"}
    # Over HTTP/1.1 the same fault says so with Connection: close, and the server closes the connection.
    add_fault(server, connection="goaway", count=1)
    body = json.dumps({"aps": {"alert": "bye"}}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"POST /3/device/{device['token']} HTTP/1.1\r\nHost: 127.0.0.1\r\napns-topic: {TOPIC}\r\n"
                     f"content-length: {len(body)}\r\n\r\n".encode() + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head = received.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 503") and b"connection: close" in head


def test_faults_are_admin_only_bounded_and_say_what_is_wrong(server):
    assert httpx.post(f"{server.url}/v1/admin/faults", json={"reason": "Shutdown"}).status_code == 401
    for fault, says in [
        ({}, "say what the fault does"),
        ({"reason": "Tired"}, "reason: expected one of APNs' reasons"),
        ({"pushType": "fax", "reason": "Shutdown"}, "pushType: expected one of alert"),
        ({"delayMilliseconds": 60001}, "delayMilliseconds: expected a whole number from 0 to 60000"),
        ({"connection": "close", "reason": "Shutdown"}, "sends no answer, so no reason"),
        ({"reason": "Shutdown", "timestamp": 5}, "only an Unregistered or ExpiredToken answer has a timestamp"),
        ({"pushesPerSecond": 3, "reason": "Shutdown"}, "takes no reason"),
        ({"reason": "Shutdown", "colour": "red"}, "colour"),
    ]:
        answer = httpx.post(f"{server.url}/v1/admin/faults", headers=ADMIN, json=fault)
        assert answer.status_code == 400 and says in answer.json()["error"], (fault, answer.text)
    for _ in range(100):
        add_fault(server, reason="Shutdown", topic="com.example.nobody")
    full = httpx.post(f"{server.url}/v1/admin/faults", headers=ADMIN, json={"reason": "Shutdown"})
    assert full.status_code == 409 and "100 faults" in full.text
    first = httpx.get(f"{server.url}/v1/admin/faults", headers=ADMIN).json()["faults"][0]
    assert httpx.delete(f"{server.url}/v1/admin/faults/{first['id']}", headers=ADMIN).status_code == 204
    assert httpx.delete(f"{server.url}/v1/admin/faults/{first['id']}", headers=ADMIN).status_code == 404
    assert httpx.delete(f"{server.url}/v1/admin/faults", headers=ADMIN).json() == {"removed": 99}


def test_the_readme_retry_loop_meets_every_failure_and_does_the_right_thing(workdir, keys, tmp_path):
    """Examples/retrying_provider.py with aioapns over TLS: 410 forgets the token, 429, 500 and a GOAWAY'd 503 are
    retried until the push is delivered, a 400 is not retried."""
    import asyncio
    import sys
    sys.path.insert(0, str(ROOT / "Examples"))
    import retrying_provider

    server = Server(workdir, tls=True, database=str(tmp_path / "retry.sqlite"))
    try:
        register_key(server, keys[2])
        gone, busy, wrong = register_device(server), register_device(server), register_device(server)
        add_fault(server, device=gone["token"], reason="Unregistered", count=1)
        for fault in [{"reason": "TooManyRequests"}, {"reason": "InternalServerError"}, {"connection": "goaway"}]:
            add_fault(server, device=busy["token"], count=1, **fault)
        add_fault(server, device=wrong["token"], reason="BadTopic")

        async def run():
            apns = retrying_provider.client(server.url, str(server.cert), keys[1], KEY_ID, TEAM_ID, TOPIC)
            message = {"aps": {"alert": {"title": "Huddle", "body": "hello"}}}
            return [await retrying_provider.send_with_retries(apns, device["token"], message) for device in (gone, busy, wrong)]

        (gone_outcome, _), (busy_outcome, busy_seen), (wrong_outcome, wrong_seen) = asyncio.run(run())
        assert gone_outcome == "unregistered"
        assert busy_outcome == "delivered"
        assert busy_seen == ["429 TooManyRequests", "500 InternalServerError", "503 Shutdown", "200"]
        assert (wrong_outcome, wrong_seen) == ("refused BadTopic", ["400 BadTopic"])
        assert stored(server, busy) == 1 and stored(server, gone) == 0
    finally:
        server.stop()


def test_huddle_faults_adds_lists_and_clears_from_a_shell(server):
    environment = {**os.environ, "HUDDLE_ADMIN_TOKEN": ADMIN_TOKEN}

    def faults(*arguments):
        return subprocess.run([str(HUDDLE), "faults", *arguments, "--server", server.url], capture_output=True, text=True,
                              env=environment, timeout=60)

    added = faults("add", "--reason", "ServiceUnavailable", "--count", "2", "--push-type", "alert")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["status"] == 503
    device = register_device(server)
    assert push(server, device).json() == {"reason": "ServiceUnavailable"}
    assert json.loads(faults("list").stdout)["faults"][0]["remaining"] == 1
    assert json.loads(faults("clear").stdout) == {"removed": 1}
    refused = faults("add", "--delay", "70000")
    assert refused.returncode == 1 and "delayMilliseconds: expected a whole number from 0 to 60000" in refused.stderr


def test_pipelined_http1_requests_behind_a_slow_push_are_answered_in_order(server):
    """HTTP/1.1 requests pipelined behind a push that takes its time wait unread (the server stops reading the
    socket until the push is answered) and are then answered in the order they were sent: a push, a page, a
    refused push, a push."""
    device = register_device(server)
    add_fault(server, delayMilliseconds=300, count=1)
    body = json.dumps({"aps": {"alert": "hi"}})

    def push_request(token):
        return (f"POST /3/device/{token} HTTP/1.1\r\nHost: localhost\r\napns-topic: {TOPIC}\r\n"
                f"content-length: {len(body)}\r\n\r\n{body}")
    pipelined = push_request(device["token"]) + "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" \
        + push_request("0" * 64) + push_request(device["token"])
    with socket.create_connection(("127.0.0.1", server.port)) as connection:
        connection.sendall(pipelined.encode())
        connection.settimeout(30)
        received = b""
        # The last answer, an accepted push, has no body: the bytes end with its header block.
        while received.count(b"HTTP/1.1 ") < 4 or not received.endswith(b"\r\n\r\n"):
            chunk = connection.recv(65536)
            assert chunk, f"the connection closed after {received!r}"
            received += chunk
    statuses = [int(status) for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", received)]
    assert statuses == [200, 200, 400, 200], received
    assert stored(server, device) == 2
