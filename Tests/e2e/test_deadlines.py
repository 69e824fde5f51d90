"""Every request has an end (issue 41), against a real `huddle serve` with raw HTTP/1.1 and HTTP/2 clients that
behave as an attacker's would: answers a client never lets through its flow-control window are reset and the
memory they held given back, waits whose clients went away give their slots back within a second, request bodies
that trickle or never end are cut off by a total deadline (and a request answered before its body ended reads no
more of it), a Live Activity token acts only for its own app, and wrong tokens cannot lock the admin out.

Each test prints what it measured (times, streams, memory): the closing note of the issue quotes them."""
import json
import pathlib
import re
import select
import socket
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
import httpx
import pytest

from conftest import ADMIN_TOKEN, KEY_ID, TEAM_ID, TOPIC, free_port, register_device, register_key, signing_key
from jwt_tokens import token as provider_token
from test_safety import CATEGORIES, RawH2, start, stops

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
TIMEOUT = 10


def rss_kib(server, field="VmRSS"):
    status = pathlib.Path(f"/proc/{server.process.pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))


def pump(clients, done, seconds):
    """Reads every client's frames as they come, whichever connection they come on, until `done()` or `seconds`
    pass; the seconds it took."""
    started = time.monotonic()
    while not done() and time.monotonic() - started < seconds:
        readable, _, _ = select.select([client.socket for client in clients if not client.closed], [], [], 0.05)
        for client in clients:
            if client.socket in readable:
                seen = len(client.events)
                client.read_until(lambda event: False, seconds=0.001)
                client.arrivals += [time.monotonic()] * (len(client.events) - seen)
    return time.monotonic() - started


def health(server):
    return httpx.get(f"{server.url}/health", timeout=TIMEOUT).status_code


class WindowZero(RawH2):
    """An HTTP/2 client that tells the server its streams' windows are 0 and never opens them: no answer's body
    can reach it. It answers PINGs (h2 does) and reads everything else."""

    def __init__(self, server):
        self.server = server
        self.socket = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        self.connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.connection.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        self.connection.initiate_connection()
        self.socket.sendall(self.connection.data_to_send())
        self.events = []
        self.closed = False
        # When each event was read (``pump``).
        self.arrivals = []

    def refused_push(self):
        """A push without a provider token: refused 403 with a JSON body, which the window keeps from coming."""
        stream = self.headers("POST", f"/3/device/{'ab' * 32}", [("apns-topic", TOPIC)], end_stream=False)
        self.connection.send_data(stream, b'{"aps": {"alert": "never read"}}', end_stream=True)
        self.flush()
        return stream

    def resets(self):
        return {event.stream_id: event.error_code for event in self.events if isinstance(event, h2.events.StreamReset)}

    def answer_waits(self):
        """For each stream reset, the seconds from its answer's headers to its reset."""
        answered = {event.stream_id: when for event, when in zip(self.events, self.arrivals) if isinstance(event, h2.events.ResponseReceived)}
        return [when - answered[event.stream_id] for event, when in zip(self.events, self.arrivals)
                if isinstance(event, h2.events.StreamReset) and event.stream_id in answered]


def test_answers_a_client_never_lets_through_are_reset_and_their_memory_given_back(tmp_path):
    """30 connections × 100 streams whose answers' bodies the client never lets through (window 0): each stream is
    reset once its answer waited --write-timeout (those past a connection's 1 MiB of held answers at once), each
    connection is then idle and sent away, /health answers throughout, and the server's memory comes back."""
    server = start(tmp_path, "--request-timeout", "5", "--write-timeout", "2", "--idle-timeout", "60", "--max-connections", "40")
    try:
        assert health(server) == 200
        before = rss_kib(server)
        clients = [WindowZero(server) for _ in range(30)]
        started = time.monotonic()
        opened = {}
        for client in clients:
            # Half refused pushes (a small body each), half the OpenAPI document (60 KB each, over the 1 MiB a
            # connection may hold for its client).
            opened[client] = [client.refused_push() for _ in range(50)] + [client.headers("GET", "/openapi.yaml") for _ in range(50)]
        # Every stream is reset within the write timeout and a little (the deadline's check is one timer per
        # connection, and this loop visits thirty connections in turn).
        pump(clients, lambda: not any(set(opened[client]) - set(client.resets()) for client in clients), seconds=2 + 6)
        reset_after = time.monotonic() - started
        waits = sorted(wait for client in clients for wait in client.answer_waits())
        during = rss_kib(server, "VmHWM")
        unreset = sum(len(set(opened[client]) - set(client.resets())) for client in clients)
        assert unreset == 0, f"{unreset} of 3,000 streams were still open {reset_after:.1f} s after their answers"
        assert health(server) == 200
        # No answer's body came: what the client saw are headers and resets.
        assert not any(isinstance(event, h2.events.DataReceived) for client in clients for event in client.events)
        codes = {code for client in clients for code in client.resets().values()}
        assert codes <= {h2.errors.ErrorCodes.CANCEL}, codes
        # With no stream busy and no push accepted, each connection is sent away after --request-timeout (and cut off
        # one more later if it stays).
        pump(clients, lambda: all(client.closed for client in clients), seconds=5 + 5 + 3)
        left = sum(not client.closed for client in clients)
        assert left == 0, f"{left} connections with only reset streams were still open"
        closed_after = time.monotonic() - started
        # Forty more connections fit under --max-connections 40 now: nothing was kept for the thirty.
        more = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(39)]
        assert health(server) == 200
        for sock in more:
            sock.close()
        # The memory of connections gone goes back to the system within a few seconds (MemoryReturn looks every 5 s).
        deadline = time.monotonic() + 12
        while (after := rss_kib(server)) - before >= 40 * 1024 and time.monotonic() < deadline:
            time.sleep(0.5)
        print(f"\nwindow 0, 30 × 100 streams: all reset {reset_after:.1f} s after the first was opened; from its answer's headers "
              f"to its reset a stream waited {waits[0]:.1f} s at least, {waits[len(waits) // 2]:.1f} s at the median, {waits[-1]:.1f} s at most "
              f"({len(waits)} timed); every connection closed {closed_after:.1f} s after; "
              f"RSS {before / 1024:.1f} MiB before, at most {during / 1024:.1f} MiB, {after / 1024:.1f} MiB after")
        assert during - before < 200 * 1024, f"the attack took the server from {before} to {during} KiB"
        assert after - before < 40 * 1024, f"RSS {before} KiB before the attack, {after} KiB after it ended"
    finally:
        server.stop()


def test_a_connection_holds_at_most_its_bytes_for_a_client_that_does_not_read(tmp_path):
    """One connection, window 0: of 40 OpenAPI documents (60 KB each) asked at once, those that would take the
    connection past 1 MiB held for its client are reset at once; the rest wait for the write timeout."""
    server = start(tmp_path, "--write-timeout", "30", "--request-timeout", "10")
    client = WindowZero(server)
    try:
        size = len(httpx.get(f"{server.url}/openapi.yaml", timeout=TIMEOUT).content)
        most_held = (1 << 20) // size + 1
        streams = [client.headers("GET", "/openapi.yaml") for _ in range(40)]
        # Every stream past the bytes the connection may hold is reset: waited for all, whatever the document's size.
        client.read_until(lambda event: len(client.resets()) >= len(streams) - most_held, seconds=5)
        held = len(streams) - len(client.resets())
        print(f"\n40 answers of {size:,} bytes on one window-0 connection: {held} held, {len(client.resets())} reset at once")
        assert 1 <= held <= most_held, held
        assert set(client.resets()) <= set(streams)
    finally:
        client.close()
        server.stop()


def test_a_stream_whose_answer_waits_for_the_window_leaves_the_connection_idle(tmp_path):
    """A connection whose only stream's answer waits for a window the client never opens is idle: it is sent away
    after --request-timeout (no push accepted on it), well before --write-timeout resets the stream."""
    server = start(tmp_path, "--request-timeout", "2", "--write-timeout", "60", "--idle-timeout", "60")
    client = WindowZero(server)
    try:
        stream = client.headers("GET", "/openapi.yaml")
        answered, _ = client.read_until(lambda event: isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream, seconds=5)
        assert isinstance(answered, h2.events.ResponseReceived), client.events
        what, after = client.read_until(stops(), seconds=8)
        assert what is not None, "a connection whose only answer waited for the window was still open 8 s later, with --request-timeout 2"
        print(f"\nan answer waiting for a window of 0: its connection sent away {after:.1f} s after the answer's headers")
    finally:
        client.close()
        server.stop()


# MARK: 2. Waits whose clients went away

def wait_request(device, seconds=40):
    return (f"/v1/devices/{device['token']}/center?wait={seconds}&notifications=5",
            [("authorization", f"Bearer {device['secret']}")])


def live_stream_status(server, device):
    with httpx.Client(timeout=TIMEOUT) as client:
        with client.stream("GET", f"{server.url}/v1/devices/{device['token']}/stream",
                           headers={"authorization": f"Bearer {device['secret']}"}) as response:
            return response.status_code


def seconds_until_a_slot_is_free(server, device, limit=5):
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if live_stream_status(server, device) == 200:
            return time.monotonic() - started
        time.sleep(0.05)
    return None


@pytest.mark.parametrize("leaving", ["reset", "close"])
def test_a_wait_whose_client_went_away_gives_its_slot_back_within_a_second(tmp_path, leaving):
    """With --max-streams 4, four waits of 40 s hold every slot (another device's stream gets 503); once their
    clients reset the streams (HTTP/2) or close their connections (HTTP/1.1), a stream opens within a second."""
    server = start(tmp_path, "--max-streams", "4", "--request-timeout", "60")
    try:
        waiting = register_device(server, categories=CATEGORIES)
        other = register_device(server, categories=CATEGORIES)
        path, headers = wait_request(waiting)
        if leaving == "reset":
            client = RawH2(server)
            streams = [client.headers("GET", path, headers) for _ in range(4)]
        else:
            sockets = []
            for _ in range(4):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
                sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {waiting['secret']}\r\n\r\n").encode())
                sockets.append(sock)
        deadline = time.monotonic() + 10
        while live_stream_status(server, other) != 503:
            assert time.monotonic() < deadline, "the four waits did not take the four slots"
            time.sleep(0.1)
        if leaving == "reset":
            for stream in streams:
                client.connection.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
            client.flush()
        else:
            for sock in sockets:
                sock.close()
        freed = seconds_until_a_slot_is_free(server, other)
        print(f"\nfour waits of 40 s whose clients left ({leaving}): a slot free {freed:.2f} s later" if freed is not None else "")
        assert freed is not None and freed < 1.5, f"no slot came back within 5 s of the clients leaving ({leaving})"
        if leaving == "reset":
            client.close()
    finally:
        server.stop()


def test_an_inspector_wait_whose_client_went_away_gives_its_slot_back(tmp_path):
    server = start(tmp_path, "--max-streams", "2", "--request-timeout", "60")
    try:
        other = register_device(server, categories=CATEGORIES)
        client = RawH2(server)
        streams = [client.headers("GET", "/v1/admin/requests?wait=40&count=3&device=" + "cd" * 32, [("authorization", ADMIN["authorization"])])
                   for _ in range(2)]
        deadline = time.monotonic() + 10
        while live_stream_status(server, other) != 503:
            assert time.monotonic() < deadline, "the two waits did not take the two slots"
            time.sleep(0.1)
        for stream in streams:
            client.connection.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
        client.flush()
        freed = seconds_until_a_slot_is_free(server, other)
        assert freed is not None and freed < 1.5, "no slot came back within 5 s of the inspector waits' resets"
        client.close()
    finally:
        server.stop()


# MARK: 3. Bodies that never end

def test_an_http2_push_body_that_trickles_is_cut_off_at_the_request_timeout(tmp_path):
    """A push body sent a byte every 0.5 s never lets a gap reach --request-timeout 2; the total does: reset within
    about 2 s of the stream's opening."""
    server = start(tmp_path, "--development", "--request-timeout", "2")
    client = RawH2(server)
    try:
        device = register_device(server, categories=CATEGORIES)
        started = time.monotonic()
        stream = client.headers("POST", f"/3/device/{device['token']}", [("apns-topic", TOPIC)], end_stream=False)
        reset = None
        for byte in b'{"aps": {"alert": "drip, drip, drip, drip, drip"}}':
            client.connection.send_data(stream, bytes([byte]))
            client.flush()
            reset, _ = client.read_until(stops(stream), seconds=0.5)
            if reset is not None:
                break
        elapsed = time.monotonic() - started
        print(f"\nan HTTP/2 push body at a byte per 0.5 s: reset {elapsed:.1f} s after the stream opened (--request-timeout 2)")
        assert reset is not None and elapsed < 4, f"the trickling push was not cut off ({elapsed:.1f} s)"
    finally:
        client.close()
        server.stop()


def test_a_steady_http2_body_within_the_request_timeout_is_answered(tmp_path):
    server = start(tmp_path, "--request-timeout", "4")
    client = RawH2(server)
    try:
        stream = client.headers("POST", "/v1/devices", [("content-type", "application/json")], end_stream=False)
        body = json.dumps({"name": "steady"}).encode()
        for byte in body[:-1]:
            client.connection.send_data(stream, bytes([byte]))
            client.flush()
            time.sleep(0.05)
        client.connection.send_data(stream, body[-1:], end_stream=True)
        client.flush()
        answered, _ = client.read_until(lambda event: isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream, seconds=5)
        assert isinstance(answered, h2.events.ResponseReceived) and dict(answered.headers)[":status"] == "201", client.events[-4:]
    finally:
        client.close()
        server.stop()


def test_an_http1_body_that_trickles_is_cut_off_at_the_request_timeout(tmp_path):
    """HTTP/1.1: a body at a byte per 0.5 s (never silent for the 2 s of --request-timeout) is cut off by the total,
    a push's and a device API request's alike."""
    server = start(tmp_path, "--development", "--request-timeout", "2")
    try:
        device = register_device(server, categories=CATEGORIES)
        for path, extra in [(f"/3/device/{device['token']}", f"apns-topic: {TOPIC}\r\n"), ("/v1/devices", "Content-Type: application/json\r\n")]:
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            started = time.monotonic()
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Content-Length: 1000\r\n\r\n".encode())
            closed = False
            for _ in range(40):
                try:
                    sock.sendall(b" ")
                except OSError:
                    closed = True
                    break
                sock.settimeout(0.5)
                try:
                    if sock.recv(4096) == b"":
                        closed = True
                        break
                except socket.timeout:
                    pass
                except OSError:
                    closed = True
                    break
            elapsed = time.monotonic() - started
            sock.close()
            print(f"\nan HTTP/1.1 body to {path.split('/')[1]} at a byte per 0.5 s: closed after {elapsed:.1f} s (--request-timeout 2)")
            assert closed and elapsed < 4, f"POST {path}: the trickling body kept its connection {elapsed:.1f} s"
        assert health(server) == 200
    finally:
        server.stop()


def test_an_http2_request_answered_before_its_body_ended_reads_no_more_of_it(tmp_path):
    """A device registration without the registration token is answered 401 before its body is read; the server
    then resets the stream with NO_ERROR (RFC 9113 §8.1) instead of draining a body that never ends."""
    server = start(tmp_path, "--registration-token", "r" * 32)
    client = RawH2(server)
    try:
        stream = client.headers("POST", "/v1/devices", [("content-type", "application/json")], end_stream=False)
        sent = 0
        started = time.monotonic()
        reset = None
        while time.monotonic() - started < 10 and reset is None:
            window = min(client.connection.local_flow_control_window(stream), 16384)
            if window > 0:
                client.connection.send_data(stream, b" " * window)
                client.flush()
                sent += window
            reset, _ = client.read_until(stops(stream), seconds=0.05)
        answer = next((event for event in client.events if isinstance(event, h2.events.ResponseReceived)), None)
        elapsed = time.monotonic() - started
        print(f"\nan HTTP/2 request answered 401 before its body ended: reset {elapsed:.2f} s later, after {sent:,} bytes")
        assert answer is not None and dict(answer.headers)[":status"] == "401", client.events[:4]
        assert isinstance(reset, h2.events.StreamReset) and reset.error_code == h2.errors.ErrorCodes.NO_ERROR, reset
        assert sent < 1 << 20, f"{sent} bytes were read of a request already answered"
    finally:
        client.close()
        server.stop()


def test_an_http1_request_answered_before_its_body_ended_closes_its_connection(tmp_path):
    server = start(tmp_path, "--registration-token", "r" * 32, "--request-timeout", "30")
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        sock.sendall(b"POST /v1/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n")
        sock.setblocking(False)
        received, sent = b"", 0
        started = time.monotonic()
        while time.monotonic() - started < 10:
            try:
                sent += sock.send(b" " * 65536)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:
                break
            try:
                more = sock.recv(65536)
                if more == b"":
                    break
                received += more
            except BlockingIOError:
                pass
            except OSError:
                break
        sock.close()
        head = received.partition(b"\r\n\r\n")[0].lower()
        print(f"\nan HTTP/1.1 request answered 401 before its body ended: {sent:,} bytes sent before the connection ended")
        assert head.startswith(b"http/1.1 401") and b"connection: close" in head, received[:300]
        assert time.monotonic() - started < 10, "the connection stayed open while the body kept coming"
    finally:
        server.stop()


# MARK: 4. A Live Activity token acts for its own app only

def test_a_live_activity_token_answers_only_to_its_own_apps_topic(tmp_path, keys):
    """A key limited to app A cannot update, end or start app B's activity through B's tokens on the same device:
    DeviceTokenNotForTopic, and B's activity is unchanged."""
    server = start(tmp_path)
    try:
        declaration = {"types": [{"name": "Score", "attributes": {}, "contentState": {"home": "integer"}}]}
        # A's key is limited to A; B's provider has its own.
        register_key(server, keys[2], topics=("com.a.app",))
        b_key = signing_key(str(tmp_path), key_id="BKEY000001")
        register_key(server, b_key[2], key_id="BKEY000001", topics=("com.b.app",))
        device = register_device(server)
        for app in ("com.a.app", "com.b.app"):
            response = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{app}", headers={"authorization": f"Bearer {device['secret']}"},
                                 json={"liveActivities": declaration}, timeout=TIMEOUT)
            assert response.status_code == 200, response.text
        listing = httpx.get(f"{server.url}/v1/devices/{device['token']}/activities", headers={"authorization": f"Bearer {device['secret']}"}).json()
        start_of = {entry["app"]: entry["token"] for entry in listing["pushToStartTokens"]}
        jwt = {"com.a.app": provider_token(keys[1], KEY_ID, TEAM_ID), "com.b.app": provider_token(b_key[1], "BKEY000001", TEAM_ID)}
        now = int(time.time())

        def push(token, app, aps):
            return httpx.post(f"{server.url}/3/device/{token}", content=json.dumps({"aps": aps}), timeout=TIMEOUT,
                              headers={"authorization": f"bearer {jwt[app]}", "apns-topic": f"{app}.push-type.liveactivity",
                                       "apns-push-type": "liveactivity"})

        started = push(start_of["com.b.app"], "com.b.app", {"timestamp": now, "event": "start", "attributes-type": "Score",
                                                              "attributes": {}, "content-state": {"home": 1}})
        assert started.status_code == 200, started.text
        [activity] = httpx.get(f"{server.url}/v1/devices/{device['token']}/activities",
                               headers={"authorization": f"Bearer {device['secret']}"}).json()["activities"]
        for token, aps in [(activity["updateToken"], {"timestamp": now + 1, "event": "update", "content-state": {"home": 9}}),
                           (activity["updateToken"], {"timestamp": now + 2, "event": "end", "content-state": {"home": 9}}),
                           (start_of["com.b.app"], {"timestamp": now + 3, "event": "start", "attributes-type": "Score", "attributes": {},
                                                    "content-state": {"home": 5}})]:
            refused = push(token, "com.a.app", aps)
            assert refused.status_code == 400 and refused.json()["reason"] == "DeviceTokenNotForTopic", (aps["event"], refused.text)
        [unchanged] = httpx.get(f"{server.url}/v1/devices/{device['token']}/activities",
                                headers={"authorization": f"Bearer {device['secret']}"}).json()["activities"]
        assert unchanged["state"] == "active" and unchanged["contentState"] == {"home": 1}, unchanged
        # B's own topic still updates it.
        assert push(activity["updateToken"], "com.b.app", {"timestamp": now + 4, "event": "update", "content-state": {"home": 2}}).status_code == 200
    finally:
        server.stop()


# MARK: 5. Wrong tokens cannot lock the admin out

def test_wrong_admin_tokens_slow_guessing_without_locking_the_admin_out(tmp_path):
    """Ten wrong admin tokens from this machine: the right token still gets in at once; each wrong one after them
    is answered 429 after a pause; and 127.0.0.2 is the same machine, with no fresh guesses."""
    server = start(tmp_path)
    try:
        url = f"{server.url}/v1/admin/keys"
        for attempt in range(10):
            assert httpx.get(url, headers={"authorization": f"Bearer wrong-{attempt}"}, timeout=TIMEOUT).status_code == 401
        started = time.monotonic()
        assert httpx.get(url, headers=ADMIN, timeout=TIMEOUT).status_code == 200
        assert time.monotonic() - started < 0.9, "the right token waited like a wrong one"
        started = time.monotonic()
        held = httpx.get(url, headers={"authorization": "Bearer wrong-11"}, timeout=TIMEOUT)
        paused = time.monotonic() - started
        assert held.status_code == 429 and held.headers["retry-after"] == "1", (held.status_code, held.headers)
        assert paused >= 0.9, f"the wrong token past the limit was answered after {paused:.2f} s"
        other_address = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(transport=other_address, timeout=TIMEOUT) as client:
            assert client.get(url, headers={"authorization": "Bearer wrong-12"}).status_code == 429
            assert client.get(url, headers=ADMIN).status_code == 200
        print(f"\nafter ten wrong admin tokens: the right one answered 200 at once, the next wrong one 429 after {paused:.2f} s")
    finally:
        server.stop()
