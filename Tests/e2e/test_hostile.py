"""Hostile clients against a real `huddle serve`: inputs that used to crash or stall the server, and the limits
that bound what one client can make it hold. Each attack gets a clear refusal naming the limit, the server
keeps answering GET /health while it runs (liveness: each probe gets its answer within a generous request
timeout; how fast is for the benchmarks), and where the attack left something stored, the server still renders
every center after a restart."""
import json
import pathlib
import re
import select
import socket
import ssl
import subprocess
import threading
import time
import warnings

import h2.config
import h2.connection
import h2.events
import httpx
import pytest

from conftest import (ADMIN_TOKEN, HUDDLE, KEY_ID, TEAM_ID, TOPIC, Server, free_port, read_center, register_device, register_key,
                      signing_key, verification, write_certificate)
from jwt_tokens import token

# Seconds a request may go unanswered before the test fails: a deadline, so that a server that stops answering
# fails the test instead of hanging it, not a measure of speed.
REQUEST_TIMEOUT = 10.0
HUGE = 9223372036854775807  # Int64.max
MESSAGE_CATEGORIES = [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]


# MARK: Helpers

@pytest.fixture
def serve(tmp_path, keys):
    """Starts dedicated servers (`serve("--max-connections", "50")`) with the session's signing key
    registered; all are stopped after the test."""
    started = []

    def start(*extra, tls=False):
        directory = tmp_path / f"server-{len(started)}"
        directory.mkdir()
        if tls:
            write_certificate(directory)
        server = Server(str(directory), tls=tls, extra=list(extra))
        started.append(server)
        register_key(server, keys[2])
        return server

    yield start
    for server in started:
        server.stop()


def auth(device):
    return {"authorization": f"Bearer {device['secret']}"}


def device_url(server, device, rest=""):
    return f"{server.url}/v1/devices/{device['token']}{rest}"


def log_tail(server, lines=40):
    try:
        text = pathlib.Path(server.log_path).read_text(errors="replace")
    except OSError:
        return "(no log)"
    return f"--- last lines of {server.log_path} ---\n" + "\n".join(text.splitlines()[-lines:])


def restart(server):
    """A graceful stop (which must exit 0) and a start on the same database."""
    server.stop()
    server.start()


class HealthProbe:
    """Polls GET /health, each time on a fresh connection, while an attack runs: a liveness check, not a
    measure of speed. Every probe must be answered 200 {"status": "ok"} within REQUEST_TIMEOUT (a request that
    times out is a failure), and the server must not have exited."""

    def __init__(self, server, interval=0.2):
        self.server = server
        self.interval = interval
        self.answered = 0
        self.failures = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def probe(self):
        try:
            response = httpx.get(f"{self.server.url}/health", timeout=REQUEST_TIMEOUT, verify=verification(self.server))
        except Exception as error:  # noqa: BLE001 — any failure to answer (a timeout included) is what this looks for
            self.failures.append(f"GET /health got no answer: {type(error).__name__}: {error}")
            return
        try:
            healthy = response.status_code == 200 and response.json() == {"status": "ok"}
        except ValueError:  # not JSON
            healthy = False
        if healthy:
            self.answered += 1
        else:
            self.failures.append(f"GET /health answered {response.status_code} {response.text!r}")

    def run(self):
        while not self.stop.is_set():
            self.probe()
            self.stop.wait(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, kind, value, trace):
        self.stop.set()
        self.thread.join(timeout=REQUEST_TIMEOUT + 5)
        if kind is not None:
            return False
        assert not self.thread.is_alive(), f"a GET /health probe was still waiting after its timeout\n{log_tail(self.server)}"
        self.probe()  # one more, after the attack
        assert self.server.process.poll() is None, f"huddle serve exited with {self.server.process.returncode}\n{log_tail(self.server)}"
        assert not self.failures, f"{self.failures[:5]}\n{log_tail(self.server)}"
        assert self.answered > 0
        return False


def assert_error(response, status, fragment=None, *, exact=None, ends_with=None, server=None):
    """A device-API refusal: the status and `{"error": "..."}` naming the problem."""
    context = f"{response.request.method} {response.request.url} → {response.status_code} {response.text!r}"
    if server is not None:
        context += "\n" + log_tail(server)
    assert response.status_code == status, context
    message = response.json()["error"]
    if fragment is not None:
        assert fragment in message, context
    if exact is not None:
        assert message == exact, context
    if ends_with is not None:
        assert message.endswith(ends_with), context
    return message


def add_local(client, server, device, content, identifier=None, topic=TOPIC):
    body = {"content": content}
    if identifier:
        body["id"] = identifier
    return client.post(device_url(server, device, f"/apps/{topic}/notifications"), headers=auth(device), json=body)


def notifications_of(center):
    return [notification for group in center["groups"] for notification in group["notifications"]]


def provider_headers(jwt):
    return {"authorization": f"bearer {jwt}", "apns-topic": TOPIC}


class H2Connection:
    """One raw HTTP/2 (h2c, prior knowledge) connection: requests are sent exactly when and how the test
    says, several of them in one write if asked, and always on this one connection."""

    def __init__(self, server):
        self.server = server
        self.socket = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        self.connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.connection.initiate_connection()
        self.socket.sendall(self.connection.data_to_send())

    def close(self):
        try:
            self.connection.close_connection()
            self.socket.sendall(self.connection.data_to_send())
        except OSError:
            pass
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def send_all(self, requests):
        """Sends every request ((path, headers, body), ...) in one write; returns their stream ids."""
        streams = []
        for path, headers, body in requests:
            stream = self.connection.get_next_available_stream_id()
            head = [(":method", "POST"), (":scheme", "http"), (":authority", f"127.0.0.1:{self.server.port}"), (":path", path),
                    *headers.items(), ("content-length", str(len(body)))]
            self.connection.send_headers(stream, head)
            self.connection.send_data(stream, body, end_stream=True)
            streams.append(stream)
        self.socket.sendall(self.connection.data_to_send())
        return streams

    def responses(self, streams, timeout=10):
        """(status, body) of each stream, in the order given."""
        answers = {stream: {"status": None, "body": b"", "done": False} for stream in streams}
        deadline = time.monotonic() + timeout
        while not all(answer["done"] for answer in answers.values()):
            assert time.monotonic() < deadline, f"no complete answer within {timeout} s: {answers}"
            data = self.socket.recv(65536)
            assert data, f"the server closed the connection before answering: {answers}"
            for event in self.connection.receive_data(data):
                answer = answers.get(getattr(event, "stream_id", None))
                if isinstance(event, h2.events.ResponseReceived) and answer is not None:
                    answer["status"] = int(dict(event.headers)[":status"])
                elif isinstance(event, h2.events.DataReceived):
                    self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    if answer is not None:
                        answer["body"] += event.data
                elif isinstance(event, h2.events.StreamEnded) and answer is not None:
                    answer["done"] = True
                elif isinstance(event, h2.events.StreamReset) and answer is not None:
                    raise AssertionError(f"stream {event.stream_id} was reset ({event.error_code})")
            outgoing = self.connection.data_to_send()
            if outgoing:
                self.socket.sendall(outgoing)
        return [(answers[stream]["status"], answers[stream]["body"]) for stream in streams]

    def push(self, device_token, jwt, payload=None):
        body = json.dumps(payload or {"aps": {"alert": "hello"}}).encode()
        [stream] = self.send_all([(f"/3/device/{device_token}", provider_headers(jwt), body)])
        [(status, body)] = self.responses([stream])
        return status, (json.loads(body) if body else {})


def rss_kib(server, field="VmRSS"):
    """The server's resident memory now (VmRSS), or the most it has held since it started (VmHWM)."""
    status = pathlib.Path(f"/proc/{server.process.pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))


def metric(server, name):
    response = httpx.get(f"{server.url}/metrics", timeout=REQUEST_TIMEOUT)
    assert response.status_code == 200, f"GET /metrics answered {response.status_code} {response.text!r}"
    text = response.text
    return sum(float(value) for value in re.findall(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M))


def closed_by_peer(sock):
    """Whether a readable socket was closed by the server (EOF or reset), reading at most a little."""
    try:
        return sock.recv(4096) == b""
    except (ConnectionResetError, ConnectionAbortedError):
        return True
    except BlockingIOError:
        return False


def drained_to_close(sock, seconds=5):
    """Reads what the server sent; whether it ends with the server's close (EOF or reset) within `seconds`."""
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
        return True
    except (ConnectionResetError, ConnectionAbortedError):
        return True
    except (socket.timeout, BlockingIOError):
        return False


# MARK: 1. Format positions

def test_category_format_with_a_huge_position_is_refused(serve):
    server = serve()
    device = register_device(server, categories=MESSAGE_CATEGORIES)
    bad = [{"identifier": "msg", "categorySummaryFormat": "%9223372036854775807$u more"}]
    expected = "has an invalid position (positions run from 1 to 32)"
    with HealthProbe(server), httpx.Client(timeout=10) as client:
        created = add_local(client, server, device, {"title": "Teja", "body": "Pizza?", "categoryIdentifier": "msg",
                                                     "threadIdentifier": "t", "summaryArgument": "Teja"})
        assert created.status_code == 201, created.text
        saved = client.put(device_url(server, device, f"/apps/{TOPIC}"), headers=auth(device), json={"categories": bad})
        assert_error(saved, 400, expected, server=server)
        replaced = client.put(device_url(server, device, f"/apps/{TOPIC}/categories"), headers=auth(device), json=bad)
        assert_error(replaced, 400, expected, server=server)
        # Nothing of the refused categories was kept.
        [app] = client.get(device_url(server, device, "/apps"), headers=auth(device)).json()
        assert [category["categorySummaryFormat"] for category in app["categories"]] == ["%u more messages from %@"], app
    restart(server)
    center = read_center(server, device)
    assert [notification["body"] for notification in notifications_of(center)] == ["Pizza?"]


# MARK: 2. A localization key that looks like a format

def test_a_loc_key_with_a_huge_position_shows_as_itself_and_survives_restarts(serve):
    server = serve()
    device = register_device(server)
    key = "%9223372036854775807$@"
    with HealthProbe(server), httpx.Client(timeout=10) as client:
        created = add_local(client, server, device, {"bodyLocKey": key}, identifier="hostile-key")
        assert created.status_code == 201, f"{created.text}\n{log_tail(server)}"
        response = client.get(device_url(server, device, "/center"), headers=auth(device))
        assert response.status_code == 200, f"{response.text}\n{log_tail(server)}"
        [notification] = [n for n in notifications_of(response.json()) if n["id"] == "hostile-key"]
        assert notification["body"] == key
    for _ in range(2):  # this used to crash every start that loaded the device
        restart(server)
        center = read_center(server, device)
        [notification] = [n for n in notifications_of(center) if n["id"] == "hostile-key"]
        assert notification["body"] == key


# MARK: 3. Summary counts

def test_huge_summary_argument_counts_are_capped(serve, keys):
    server = serve()
    device = register_device(server, categories=MESSAGE_CATEGORIES)
    content = {"title": "Teja", "categoryIdentifier": "msg", "threadIdentifier": "t", "summaryArgument": "Teja",
               "summaryArgumentCount": HUGE}
    with HealthProbe(server), httpx.Client(timeout=10) as client:
        for number in range(2):
            created = add_local(client, server, device, {**content, "body": f"local {number}"}, identifier=f"local-{number}")
            assert created.status_code == 201, f"{created.text}\n{log_tail(server)}"
        [group] = read_center(server, device)["groups"]
        assert group["summary"] == "1,000,000 more messages from Teja", group

        payload = {"aps": {"alert": {"title": "Teja", "body": "pushed", "summary-arg": "Teja", "summary-arg-count": HUGE},
                           "thread-id": "t", "category": "msg"}}
        with httpx.Client(http1=False, http2=True, timeout=10) as provider:
            pushed = provider.post(f"{server.url}/3/device/{device['token']}", content=json.dumps(payload),
                                   headers=provider_headers(token(keys[1], KEY_ID, TEAM_ID)))
        assert pushed.status_code == 200, f"{pushed.text}\n{log_tail(server)}"
        [group] = read_center(server, device)["groups"]
        assert group["count"] == 3
        assert group["summary"] == "2,000,000 more messages from Teja", group
    restart(server)
    [group] = read_center(server, device)["groups"]
    assert group["summary"] == "2,000,000 more messages from Teja", group


# MARK: 4. JSON with very many keys

def test_json_objects_with_40000_keys_are_refused(serve):
    """Two clients at once send bodies of 40,000 keys: each is refused with the limit it met, every request is
    answered within its timeout, and GET /health stays answerable meanwhile (liveness, not speed)."""
    server = serve()
    device = register_device(server)
    many = ("{" + ",".join(f'"key{index}":{index}' for index in range(40_000)) + "}").encode()
    errors = []

    def attack():
        try:
            with httpx.Client(timeout=60) as client:
                registered = client.post(f"{server.url}/v1/devices", content=many, headers={"content-type": "application/json"})
                assert_error(registered, 413, exact="the body is larger than 4096 bytes", server=server)
                saved = client.put(device_url(server, device, f"/apps/{TOPIC}"), content=many, headers=auth(device))
                assert_error(saved, 400, ends_with="an object has more than 10000 members", server=server)
        except BaseException as error:  # noqa: BLE001 — reported by the test thread
            errors.append(error)

    with HealthProbe(server):
        workers = [threading.Thread(target=attack) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=150)  # each of its two requests has 60 s
        assert not any(worker.is_alive() for worker in workers), "an attack was still waiting for an answer past its requests' timeouts"
    if errors:
        raise errors[0]


# MARK: 5. Plural variables that multiply

def stringsdict(format_key, variables):
    """A .stringsdict with one entry, DEEP: `variables` maps each name to its `other` form."""
    definitions = "".join(
        f"<key>{name}</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>"
        f"<key>NSStringFormatValueTypeKey</key><string>d</string><key>other</key><string>{form}</string></dict>"
        for name, form in variables.items())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
            '<plist version="1.0"><dict><key>DEEP</key><dict>'
            f"<key>NSStringLocalizedFormatKey</key><string>{format_key}</string>{definitions}"
            "</dict></dict></plist>\n").encode()


def test_plural_variables_that_multiply_or_nest_too_deep_are_refused(serve):
    server = serve()
    device = register_device(server)
    path = device_url(server, device, f"/apps/{TOPIC}/localizations/en.lproj/Localizable.stringsdict")
    # 8 levels, each form using the next variable 8 times: 8^8 (16.7 million) copies of the innermost text.
    multiplying = stringsdict("%#@v0@", {f"v{level}": (f"%#@v{level + 1}@" * 8 if level < 7 else "x") for level in range(8)})
    assert len(multiplying) < 2500
    with HealthProbe(server), httpx.Client(timeout=30) as client:
        created = add_local(client, server, device, {"title": "Teja", "body": "still here"})
        assert created.status_code == 201, created.text
        refused = client.put(path, headers=auth(device), content=multiplying)
        assert_error(refused, 400, "is used twice in one text", server=server)
        # The center still renders, answered within the request timeout (a timeout fails the test).
        center = client.get(device_url(server, device, "/center"), headers=auth(device), timeout=REQUEST_TIMEOUT)
        assert center.status_code == 200, center.text
        assert [n["body"] for n in notifications_of(center.json())] == ["still here"]

        # Each variable used once, but nesting 9 deep: refused; 8 deep is the most allowed.
        nine = stringsdict("%#@v0@", {f"v{level}": (f"a%#@v{level + 1}@" if level < 8 else "x") for level in range(9)})
        assert_error(client.put(path, headers=auth(device), content=nine), 400, "plural variables nest more than 8 deep", server=server)
        eight = stringsdict("%#@v0@", {f"v{level}": (f"a%#@v{level + 1}@" if level < 7 else "x") for level in range(8)})
        accepted = client.put(path, headers=auth(device), content=eight)
        assert accepted.status_code == 204, f"{accepted.text}\n{log_tail(server)}"
        assert client.get(device_url(server, device, "/center"), headers=auth(device)).status_code == 200
    restart(server)
    assert [n["body"] for n in notifications_of(read_center(server, device))] == ["still here"]


# MARK: 6. Streams that never read

def fill_center(server, device, count, threads):
    """Gives a device `count` notifications of 500 characters in `threads` threads, from 7 senders."""
    with httpx.Client(timeout=10) as client:
        for number in range(count):
            created = add_local(client, server, device, {
                "title": f"Sender {number % 7}", "body": f"{number:04d} " + "x" * 495, "categoryIdentifier": "msg",
                "threadIdentifier": f"t{number % threads}", "summaryArgument": f"Sender {number % 7}"}, identifier=f"n{number}")
            assert created.status_code == 201, created.text


def test_streams_that_never_read_are_bounded(serve):
    server = serve("--max-streams-per-device", "64", "--stream-buffer-bytes", "262144")
    device = register_device(server, categories=MESSAGE_CATEGORIES)
    fill_center(server, device, 300, threads=30)
    center_bytes = len(json.dumps(read_center(server, device)))
    before = rss_kib(server)

    sockets = []
    try:
        for index in range(64):
            # 16 views (a limit above any group's size changes nothing shown), so that not all the streams share
            # one rendering of each change (rendering for 64 views makes each change slow in a debug build).
            request = (f"GET /v1/devices/{device['token']}/stream?languages=en&limit={1000 + index % 16} HTTP/1.1\r\n"
                       f"Host: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {device['secret']}\r\n"
                       "Accept: text/event-stream\r\n\r\n").encode()
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(request)
            sockets.append(sock)
        deadline = time.monotonic() + 20
        while metric(server, "huddle_live_streams") < 64:
            assert time.monotonic() < deadline, f"only {metric(server, 'huddle_live_streams')} of the 64 streams opened\n{log_tail(server)}"
            time.sleep(0.1)

        with HealthProbe(server), httpx.Client(timeout=REQUEST_TIMEOUT) as client:
            with client.stream("GET", device_url(server, device, "/stream"), params={"languages": "en"},
                               headers={**auth(device), "accept": "text/event-stream"}) as one_more:
                assert one_more.status_code == 429, f"the 65th stream got {one_more.status_code}\n{log_tail(server)}"
                one_more.read()
            assert_error(one_more, 429, exact="the device has 64 live streams open, the most allowed "
                                              "(--max-streams-per-device); close one first", server=server)
            def regroup(change):
                # Each change is answered, and correctly, within the request timeout (a timeout fails the test).
                grouping = "off" if change % 2 == 0 else "automatic"
                response = client.patch(device_url(server, device, f"/apps/{TOPIC}/settings"), headers=auth(device),
                                        json={"grouping": grouping})
                assert response.status_code == 200, f"{response.text}\n{log_tail(server)}"
                assert response.json()["grouping"] == grouping

            for change in range(20):
                regroup(change)
            # The streams that fell behind by more than their buffer are dropped from the center's feed (if 20
            # regroupings have not yet filled the kernel's socket buffers and theirs, a few more will).
            changes = 20
            while (live := metric(server, "huddle_live_streams")) > 0:
                assert changes < 60, f"{live:.0f} streams that never read were still fed after {changes} regroupings\n{log_tail(server)}"
                regroup(changes)
                changes += 1
            # The most the server held resident, whenever that was: every stream has filled its buffer by now.
            after = rss_kib(server, "VmHWM")
        print(f"\ncenter of {center_bytes:,} bytes of JSON, 64 streams that never read: RSS {before / 1024:.1f} MiB before, "
              f"at most {after / 1024:.1f} MiB since (+{(after - before) / 1024:.1f} MiB); every stream dropped after {changes} regroupings")
        assert after - before < 300 * 1024, f"RSS grew from {before} KiB to a peak of {after} KiB"
    finally:
        for sock in sockets:
            sock.close()

    # The slots are given back once the clients are gone: a new stream opens.
    deadline = time.monotonic() + 15
    while True:
        with httpx.Client(timeout=10) as client:
            with client.stream("GET", device_url(server, device, "/stream"), params={"languages": "en", "limit": "1"},
                               headers=auth(device)) as response:
                if response.status_code == 200:
                    line = next(line for line in response.iter_lines() if line.startswith("event:"))
                    assert line == "event: center"
                    break
                response.read()
                assert response.status_code == 429, response.text
        assert time.monotonic() < deadline, f"no stream could open within 15 s of closing the others\n{log_tail(server)}"
        time.sleep(0.25)


def test_a_stream_whose_client_stops_reading_gives_its_place_back(serve):
    # The clients keep their sockets open and never read: the write that waits longer than the write timeout
    # closes the connection, so the device's stream slots come back without the clients' help.
    server = serve("--max-streams-per-device", "4", "--stream-buffer-bytes", "65536", "--write-timeout", "2")
    device = register_device(server, categories=MESSAGE_CATEGORIES)
    fill_center(server, device, 200, threads=20)
    sockets = []
    try:
        for index in range(4):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", server.port))
            sock.sendall((f"GET /v1/devices/{device['token']}/stream?languages=en&limit={1000 + index} HTTP/1.1\r\n"
                          f"Host: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {device['secret']}\r\n"
                          "Accept: text/event-stream\r\n\r\n").encode())
            sockets.append(sock)
        deadline = time.monotonic() + 30
        with HealthProbe(server), httpx.Client(timeout=10) as client:
            change = 0
            while True:
                grouping = "off" if change % 2 == 0 else "automatic"
                response = client.patch(device_url(server, device, f"/apps/{TOPIC}/settings"), headers=auth(device),
                                        json={"grouping": grouping})
                assert response.status_code == 200, response.text
                change += 1
                with client.stream("GET", device_url(server, device, "/stream"), params={"languages": "en", "limit": "1"},
                                   headers=auth(device)) as stream:
                    if stream.status_code == 200:
                        break
                    stream.read()
                    assert stream.status_code == 429, stream.text
                assert time.monotonic() < deadline, f"no slot came back within 30 s while the clients held on\n{log_tail(server)}"
                time.sleep(0.5)
        # The server closed at least one of the stalled connections itself: reading what it had sent ends in EOF.
        assert any(drained_to_close(sock) for sock in sockets), f"no stalled connection was closed\n{log_tail(server)}"
    finally:
        for sock in sockets:
            sock.close()


# MARK: 7. Two teams on one connection

def test_two_teams_on_one_connection_are_never_both_admitted(serve, keys, tmp_path):
    server = serve()
    _, other_p8, other_public = signing_key(tmp_path, key_id="TEAMB00001")
    register_key(server, other_public, key_id="TEAMB00001", team_id="OTHERTEAM2")
    device = register_device(server)
    first = token(keys[1], KEY_ID, TEAM_ID)
    second = token(other_p8, "TEAMB00001", "OTHERTEAM2")
    body = json.dumps({"aps": {"alert": "hello"}}).encode()
    path = f"/3/device/{device['token']}"
    winners = {"first": 0, "second": 0}
    with HealthProbe(server):
        for attempt in range(20):
            order = [first, second] if attempt % 2 == 0 else [second, first]
            with H2Connection(server) as connection:
                streams = connection.send_all([(path, provider_headers(jwt), body) for jwt in order])
                answers = connection.responses(streams)
            statuses = [status for status, _ in answers]
            assert statuses.count(200) == 1, f"connection {attempt}: {answers}\n{log_tail(server)}"
            status, refusal = next((status, json.loads(text)) for status, text in answers if status != 200)
            assert (status, refusal["reason"]) in {(403, "UnrelatedKeyIdInToken"), (429, "TooManyProviderTokenUpdates")}, answers
            winners["first" if statuses[0] == 200 else "second"] += 1
    print(f"\n20 connections, two teams' tokens back to back on each: the first request won {winners['first']}, the second {winners['second']}")


# MARK: 8. Keys removed or replaced under an open connection

def test_a_removed_or_replaced_key_stops_working_on_open_connections(serve, keys, tmp_path):
    server = serve()
    device = register_device(server)
    admin = {"authorization": f"Bearer {ADMIN_TOKEN}"}
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    with HealthProbe(server), H2Connection(server) as connection:
        assert connection.push(device["token"], jwt) == (200, {})
        deleted = httpx.delete(f"{server.url}/v1/admin/keys/{KEY_ID}", headers=admin)
        assert deleted.status_code == 204, deleted.text
        status, answer = connection.push(device["token"], jwt)
        assert (status, answer.get("reason")) == (403, "InvalidProviderToken"), f"{answer}\n{log_tail(server)}"

    _, old_p8, old_public = signing_key(tmp_path, key_id="REPLACE001")
    register_key(server, old_public, key_id="REPLACE001")
    old = token(old_p8, "REPLACE001", TEAM_ID)
    with HealthProbe(server), H2Connection(server) as connection:
        assert connection.push(device["token"], old) == (200, {})
        _, _, new_public = signing_key(tmp_path, key_id="REPLACE001")
        register_key(server, new_public, key_id="REPLACE001")  # PUT: the same key id, a new public key
        status, answer = connection.push(device["token"], old)
        assert (status, answer.get("reason")) == (403, "InvalidProviderToken"), f"{answer}\n{log_tail(server)}"


# MARK: 9. Connections that hold on

def test_half_sent_headers_time_out_and_connections_are_capped(serve):
    server = serve("--request-timeout", "2")
    sockets = []
    try:
        with HealthProbe(server):
            for _ in range(300):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-A:")
                sock.setblocking(False)
                sockets.append(sock)
            # Waits for the server to close every one (its --request-timeout is 2 s; the default, 10 s), with a deadline.
            deadline = time.monotonic() + 10
            open_sockets = set(sockets)
            while open_sockets and time.monotonic() < deadline:
                readable, _, _ = select.select(list(open_sockets), [], [], 0.5)
                open_sockets.difference_update(sock for sock in readable if closed_by_peer(sock))
            assert not open_sockets, f"{len(open_sockets)} of 300 half-sent requests were still open 10 s after the last was sent"
    finally:
        for sock in sockets:
            sock.close()

    # The connections the server keeps are HTTP/1.1 ones waiting for the rest of their headers, which
    # --request-timeout 600 lets wait past the end of the test: every connection closed here was closed by the cap.
    capped = serve("--max-connections", "50", "--request-timeout", "600")
    sockets, closed = [], set()
    try:
        for _ in range(60):
            sock = socket.create_connection(("127.0.0.1", capped.port), timeout=5)
            sockets.append(sock)
            try:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-A:")
            except OSError:  # closed by the server before the request went out
                closed.add(sock)
        for sock in sockets:
            sock.setblocking(False)
        deadline = time.monotonic() + 30
        while len(closed) < 10:
            assert time.monotonic() < deadline, f"only {len(closed)} of 60 connections were closed with --max-connections 50\n{log_tail(capped)}"
            readable, _, _ = select.select([sock for sock in sockets if sock not in closed], [], [], 0.2)
            closed.update(sock for sock in readable if closed_by_peer(sock))
        print(f"\n--max-connections 50, 60 connections: {len(closed)} closed")
    finally:
        for sock in sockets:
            sock.close()
    # The slots come back once the clients have gone: poll until a request gets through, with a deadline.
    deadline = time.monotonic() + 10
    while True:
        try:
            response = httpx.get(f"{capped.url}/health", timeout=REQUEST_TIMEOUT)
            if response.status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"no request got through within 10 s of closing the connections\n{log_tail(capped)}"
        time.sleep(0.2)
    assert response.json() == {"status": "ok"}
    assert capped.process.poll() is None


# MARK: 10. TLS versions and the web session cookie

def test_tls_before_1_2_is_refused_and_session_cookies_are_secure(serve):
    server = serve(tls=True)

    def handshake(minimum, maximum):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            context.minimum_version = minimum
            context.maximum_version = maximum
        context.set_ciphers("DEFAULT:@SECLEVEL=0")
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                return tls.version()

    with HealthProbe(server):
        with pytest.raises((ssl.SSLError, ConnectionError)) as refused:
            handshake(ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1)
        # The server refused (a protocol_version alert, or closing), not the client's own library, which can
        # speak TLS 1.1 with these settings.
        assert "NO_PROTOCOLS_AVAILABLE" not in str(refused.value), refused.value
        print(f"\na TLS 1.0–1.1 client: {refused.value!r}")
        assert handshake(ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_2) == "TLSv1.2"

    device = register_device(server)
    with httpx.Client(verify=verification(server), timeout=10) as client:
        opened = client.post(f"{server.url}/devices/{device['token']}/session", json={"secret": device["secret"]})
        assert opened.status_code == 204, opened.text
        set_cookie = opened.headers["set-cookie"]
        attributes = [part.strip().lower() for part in set_cookie.split(";")]
        assert "secure" in attributes and "httponly" in attributes, set_cookie
        assert device["secret"] not in set_cookie, set_cookie
        name, _, value = set_cookie.split(";")[0].partition("=")
        assert name == f"huddle-{device['token']}"
        client.cookies.clear()
        center = f"{server.url}/v1/devices/{device['token']}/center"
        assert client.get(center, headers={"cookie": f"{name}={value}"}).status_code == 200
        raw_secret = client.get(center, headers={"cookie": f"{name}={device['secret']}"})
        assert_error(raw_secret, 401, server=server)
        wrong = client.post(f"{server.url}/devices/{device['token']}/session", json={"secret": "0" * 64})
        assert_error(wrong, 401, server=server)
        assert "set-cookie" not in wrong.headers


# MARK: 11. Registration and metrics tokens

def test_registration_and_metrics_tokens(serve):
    server = serve("--registration-token", "e2e-registration", "--metrics-token", "e2e-metrics")
    refusal = "registering a device on this server needs its registration token: send Authorization: Bearer <token>"
    with HealthProbe(server), httpx.Client(timeout=10) as client:
        url = f"{server.url}/v1/devices"
        assert_error(client.post(url, json={"name": "no token"}), 401, exact=refusal)
        assert_error(client.post(url, json={"name": "wrong"}, headers={"authorization": "Bearer e2e-metrics"}), 401, exact=refusal)
        registered = client.post(url, json={"name": "right"}, headers={"authorization": "Bearer e2e-registration"})
        assert registered.status_code == 201, registered.text
        device = registered.json()
        assert device["name"] == "right" and len(device["token"]) == 64
        # The registration token is for registering; the device's own secret is what its API takes.
        assert client.get(f"{url}/{device['token']}", headers=auth(device)).status_code == 200

        metrics = f"{server.url}/metrics"
        assert_error(client.get(metrics), 401, "metrics token")
        assert_error(client.get(metrics, headers={"authorization": "Bearer e2e-registration"}), 401, "metrics token")
        allowed = client.get(metrics, headers={"authorization": "Bearer e2e-metrics"})
        assert allowed.status_code == 200 and "huddle_" in allowed.text

    open_server = serve("--open-registration")
    assert httpx.post(f"{open_server.url}/v1/devices", json={"name": "anyone"}).status_code == 201


def test_beyond_loopback_registration_needs_a_token_by_default(tmp_path):
    # 127.0.0.2 reaches this machine only, but it is not the address `serve` treats as private
    # (127.0.0.1, ::1, localhost): without a chosen token, one is made up and logged.
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([str(HUDDLE), "serve", "--host", "127.0.0.2", "--port", str(port),
                                    "--database", str(tmp_path / "huddle.sqlite")], stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.2:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/health", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.1)
        refused = httpx.post(f"{url}/v1/devices", json={"name": "stranger"})
        assert_error(refused, 401, "registration token")
        token = re.search(r"Authorization: Bearer ([0-9a-f]{32})", log_path.read_text())
        assert token, log_path.read_text()
        allowed = httpx.post(f"{url}/v1/devices", json={"name": "owner"}, headers={"authorization": f"Bearer {token.group(1)}"})
        assert allowed.status_code == 201, allowed.text
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0


# MARK: 12. Limits on devices, apps, notifications and localization files

def test_an_app_keeps_at_most_its_limit_of_notifications_the_newest(serve, keys):
    """A provider that keeps pushing cannot fill the server: past --max-notifications-per-app, the app's
    oldest notifications are removed before the push is answered, in the store too."""
    server = serve("--max-notifications-per-app", "3")
    device = register_device(server, categories=MESSAGE_CATEGORIES)
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    with HealthProbe(server), httpx.Client(http1=False, http2=True, timeout=10) as provider:
        for number in range(8):
            payload = {"aps": {"alert": {"title": "Teja", "body": f"push {number}"}, "thread-id": f"t{number % 2}"}}
            pushed = provider.post(f"{server.url}/3/device/{device['token']}", content=json.dumps(payload),
                                   headers={**provider_headers(jwt), "apns-collapse-id": f"push-{number}"})
            assert pushed.status_code == 200, f"{pushed.text}\n{log_tail(server)}"
            kept = sorted(notification["id"] for notification in notifications_of(read_center(server, device)))
            assert len(kept) == min(number + 1, 3), kept
    assert kept == ["push-5", "push-6", "push-7"]
    restart(server)
    assert sorted(notification["id"] for notification in notifications_of(read_center(server, device))) == kept
    refused = subprocess.run([HUDDLE, "serve", "--max-notifications-per-app", "0"], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "every limit must be a positive number" in refused.stderr, refused.stderr


def test_device_app_and_localization_limits(serve):
    server = serve("--max-devices", "2", "--max-apps-per-device", "2", "--max-localization-bytes", "1000")
    with HealthProbe(server), httpx.Client(timeout=10) as client:
        device = register_device(server)
        assert client.post(f"{server.url}/v1/devices", json={"name": "second"}).status_code == 201
        assert_error(client.post(f"{server.url}/v1/devices", json={"name": "third"}), 503,
                     exact="this server has 2 devices, the most it keeps (--max-devices)")

        assert client.put(device_url(server, device, "/apps/com.example.second"), headers=auth(device), json={}).status_code == 200
        assert_error(client.put(device_url(server, device, "/apps/com.example.third"), headers=auth(device), json={}), 409,
                     exact="the device has 2 apps, the most one device may install (--max-apps-per-device)")
        # An installed app may still be changed.
        assert client.put(device_url(server, device, f"/apps/{TOPIC}"), headers=auth(device), json={"name": "Chat"}).status_code == 200

        files = device_url(server, device, f"/apps/{TOPIC}/localizations/en.lproj")
        small = "".join(f'"K{index}" = "V{index}";\n' for index in range(30)).encode()
        assert client.put(f"{files}/A.strings", headers=auth(device), content=small).status_code == 204
        too_big = client.put(f"{files}/B.strings", headers=auth(device), content=small * 3)
        assert_error(too_big, 413, "(--max-localization-bytes)", server=server)
        assert client.get(device_url(server, device, "/center"), headers=auth(device)).status_code == 200
