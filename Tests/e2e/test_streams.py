"""Live streams (Server-Sent Events) of a real `huddle serve`: the center's stream, resuming with
Last-Event-ID, the group stream of a content extension, and 200 viewers of one device."""
import asyncio
import json
import subprocess
import time
import uuid
from urllib.parse import urlencode

import httpx
import pytest

from conftest import ADMIN_TOKEN, TOPIC, Server, register_device
from sse import Parser, events

PUSHES = 2_000
VIEWERS = 200


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory):
    """A server that takes pushes without provider tokens (streams, not tokens, are under test here)."""
    # 200 viewers of one device: more than the default limit of streams per device.
    server = Server(str(tmp_path_factory.mktemp("streams")), tls=False, extra=["--development", "--max-streams-per-device", "256"])
    yield server
    server.stop()


def push(client, server, device, identifier, thread="team", body=None, argument=None):
    alert = {"title": "Teja", "body": body or identifier}
    if argument:
        alert["summary-arg"] = argument
    response = client.post(f"{server.url}/3/device/{device['token']}", headers={"apns-topic": TOPIC, "apns-collapse-id": identifier},
                           content=json.dumps({"aps": {"alert": alert, "thread-id": thread, "category": "msg"}}))
    assert response.status_code == 200, response.text


def stream_url(server, device, **query):
    return f"{server.url}/v1/devices/{device['token']}/stream", {"languages": "en", **query}


def auth(device):
    return {"authorization": f"Bearer {device['secret']}"}


def test_stream_starts_with_the_center_then_one_event_per_change(dev_server):
    device = register_device(dev_server)
    with httpx.Client(timeout=10) as client:
        push(client, dev_server, device, str(uuid.uuid4()), argument="Michele")
        url, query = stream_url(dev_server, device)
        with client.stream("GET", url, params=query, headers=auth(device)) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            stream = events(response)
            first = next(stream)
            assert first.name == "center"
            assert first.id == "2"  # the app's installation, then the push
            assert len(first.json()["center"]["groups"]) == 1
            second = str(uuid.uuid4())
            push(client, dev_server, device, second, argument="Teja")
            change = next(stream)
            assert (change.name, change.id) == ("change", "3")
            data = change.json()
            assert data["delivered"] == [second]
            assert data["removedGroups"] == []
            [group] = data["groups"]
            assert group["position"] == 0
            assert group["group"]["summary"] == "1 more messages from Michele"
            assert group["group"]["notifications"][0]["id"] == second
            # A clear from another client reaches this viewer.
            cleared = client.delete(f"{dev_server.url}/v1/devices/{device['token']}/groups/{TOPIC}%2Fteam", headers=auth(device))
            assert cleared.status_code == 200
            removal = next(stream)
            assert removal.id == "4"
            assert removal.json()["removedGroups"] == [f"{TOPIC}/team"]
            assert sorted(removal.json()["removed"]) == sorted([second, first.json()["center"]["groups"][0]["notifications"][0]["id"]])


def test_resuming_with_last_event_id_sends_only_what_changed(dev_server):
    device = register_device(dev_server)
    url, query = stream_url(dev_server, device, locked="true")
    with httpx.Client(timeout=10) as client:
        for index in range(3):
            push(client, dev_server, device, f"a{index}", thread="a")
        push(client, dev_server, device, "b0", thread="b")
        # Up to date: nothing until the next change.
        with client.stream("GET", url, params=query, headers={**auth(device), "last-event-id": "5"}) as response:
            stream = events(response)
            push(client, dev_server, device, "b1", thread="b")
            event = next(stream)
            assert (event.name, event.id, event.json()["delivered"]) == ("change", "6", ["b1"])
        # Missed changes: thread "a" grew and thread "b" went away while the client was gone.
        push(client, dev_server, device, "a3", thread="a")
        client.post(f"{dev_server.url}/v1/devices/{device['token']}/notifications/remove", headers=auth(device),
                    json={"app": TOPIC, "ids": ["b0", "b1"]})
        with client.stream("GET", url, params=query, headers={**auth(device), "last-event-id": "6"}) as response:
            event = next(events(response))
            assert (event.name, event.id) == ("change", "8")
            data = event.json()
            assert [group["group"]["id"] for group in data["groups"]] == [f"{TOPIC}/a"]
            assert data["groups"][0]["group"]["hiddenPreviewsText"] == "4 Notifications"
            assert data["removedGroups"] == [f"{TOPIC}/b"]
        # From before anything this server remembers (or nonsense): the whole center.
        with client.stream("GET", url, params=query, headers={**auth(device), "last-event-id": "999"}) as response:
            event = next(events(response))
            assert (event.name, event.id) == ("center", "8")
        bad = client.get(url, params=query, headers={**auth(device), "last-event-id": "soon"})
        assert bad.status_code == 400
        assert "Last-Event-ID" in bad.json()["error"]


def test_a_group_stream_behaves_as_a_content_extension(dev_server):
    device = register_device(dev_server)
    with httpx.Client(timeout=10) as client:
        push(client, dev_server, device, "t1", thread="t")
        push(client, dev_server, device, "t2", thread="t")
        url = f"{dev_server.url}/v1/devices/{device['token']}/groups/{TOPIC}%2Ft/stream"
        with client.stream("GET", url, headers=auth(device)) as response:
            stream = events(response)
            leading = next(stream)
            assert (leading.name, leading.json()["id"], leading.json()["body"]) == ("leading", "t2", "t2")
            push(client, dev_server, device, "elsewhere", thread="other")
            push(client, dev_server, device, "t3", thread="t")
            delivered = next(stream)
            assert (delivered.name, delivered.json()["id"]) == ("delivered", "t3")
            client.post(f"{dev_server.url}/v1/devices/{device['token']}/notifications/remove", headers=auth(device),
                        json={"app": TOPIC, "ids": ["t1"]})
            removed = next(stream)
            assert (removed.name, removed.json()["id"]) == ("removed", "t1")


def test_streams_need_the_device_secret(dev_server):
    device = register_device(dev_server)
    url, query = stream_url(dev_server, device)
    assert httpx.get(url, params=query).status_code == 401
    assert httpx.get(url, params=query, headers={"authorization": "Bearer nope"}).status_code == 401


def test_200_viewers_see_every_delivery_in_order(dev_server, tmp_path):
    """200 concurrent SSE clients on one device each see all 2,000 deliveries, in change order.

    The viewers are curl processes writing to files, so that the clients' own speed is not what is
    measured; the pushes come from 8 concurrent HTTP/2 connections.
    """
    device = register_device(dev_server)
    url, query = stream_url(dev_server, device, limit="1")
    viewers = []
    for index in range(VIEWERS):
        path = tmp_path / f"viewer-{index}.txt"
        process = subprocess.Popen(["curl", "-sN", "-o", str(path), "-H", f"authorization: Bearer {device['secret']}",
                                    f"{url}?{urlencode(query)}"])
        viewers.append((process, path))
    try:
        deadline = time.time() + 60
        for _, path in viewers:
            while not (path.exists() and b"event: center" in path.read_bytes()):
                assert time.time() < deadline, "a viewer did not get the center within 60 s"
                time.sleep(0.05)

        identifiers = [str(uuid.UUID(int=index + 1)) for index in range(PUSHES)]

        async def pusher(client, queue):
            while queue:
                index, identifier = queue.pop(0)
                body = {"aps": {"alert": {"title": "Load", "body": identifier, "summary-arg": f"S{index % 7}"},
                                "thread-id": f"t{index % 20}", "category": "msg"}}
                response = await client.post(f"{dev_server.url}/3/device/{device['token']}", content=json.dumps(body),
                                             headers={"apns-topic": TOPIC, "apns-id": identifier})
                assert response.status_code == 200, response.text

        async def push_all():
            async with httpx.AsyncClient(http1=False, http2=True, timeout=30) as client:
                queue = list(enumerate(identifiers))
                await asyncio.gather(*(pusher(client, queue) for _ in range(8)))

        started = time.monotonic()
        asyncio.run(push_all())
        pushed = time.monotonic() - started
        last = f"id: {PUSHES + 1}\n".encode()  # the app's installation was change 1
        deadline = time.time() + 120
        for _, path in viewers:
            while last not in tail(path):
                assert time.time() < deadline, f"{path.name} did not get the last change within 120 s of the pushes"
                time.sleep(0.05)
        seconds = time.monotonic() - started
    finally:
        for process, _ in viewers:
            process.terminate()
        for process, _ in viewers:
            process.wait(timeout=10)

    reference = None
    for _, path in viewers:
        with open(path, encoding="utf-8") as file:
            changes = [(int(event.id), event.json()["delivered"]) for event in parse_lines(file) if event.name == "change"]
        if reference is None:
            reference = changes
            numbers = [number for number, _ in changes]
            assert numbers == list(range(2, PUSHES + 2)), "events missing or out of order"
            assert sorted(identifier for _, delivered in changes for identifier in delivered) == sorted(identifiers)
        else:
            assert changes == reference, f"{path.name} disagrees with the first viewer"
    print(f"\n{PUSHES} pushes with {VIEWERS} viewers: accepted in {pushed:.1f} s ({PUSHES / pushed:.0f}/s); "
          f"every viewer had every delivery after {seconds:.1f} s ({PUSHES / seconds:.0f} deliveries/s)")


def tail(path, size=4096):
    with open(path, "rb") as file:
        file.seek(0, 2)
        file.seek(max(0, file.tell() - size))
        return file.read()


def parse_lines(file):
    parser = Parser()
    for line in file:
        event = parser.feed(line.rstrip("\n"))
        if event:
            yield event


def test_a_server_shutting_down_ends_its_streams_instead_of_waiting_for_them(tmp_path):
    """At SIGTERM every live stream ends cleanly, after what it had: a center stream and a group stream whose clients
    still read (each response ends with its last chunk, so the client reconnects elsewhere), one whose client left
    without the server seeing it, and the request inspector's. None holds the shutdown until its time runs out and the
    server cancels what is left, which its debug log says (the shutdown then took its whole limit, 5 s)."""
    server = Server(str(tmp_path), tls=False, extra=("--development",))
    server.stop()
    # Again with the debug log, which says when a graceful shutdown ran out of time.
    server.arguments = ["env", "LOG_LEVEL=debug", *server.arguments]
    server.start()
    try:
        device = register_device(server)
        auth = {"authorization": f"Bearer {device['secret']}"}
        center = f"{server.url}/v1/devices/{device['token']}/stream"
        with httpx.Client(timeout=20) as client:
            # A client that leaves without the server noticing: its stream waits for an event that never comes.
            with client.stream("GET", center, headers=auth) as left:
                next(left.iter_lines())
            with client.stream("GET", f"{server.url}/v1/admin/requests/stream", headers={"authorization": f"Bearer {ADMIN_TOKEN}"}) as inspector, \
                    client.stream("GET", f"{server.url}/v1/devices/{device['token']}/groups/{TOPIC}%2Fteam/stream", headers=auth) as group, \
                    client.stream("GET", center, headers=auth) as reading:
                streams = [reading.iter_lines(), group.iter_lines(), inspector.iter_lines()]
                for lines in streams:
                    next(lines)
                server.process.terminate()
                # Each ends as a response does (httpx raises on a connection cut off in the middle of one).
                for lines in streams:
                    received = list(lines)
                    assert all(not line or line.startswith((":", "id:", "event:", "data:", "retry:")) for line in received), received
        assert server.process.wait(timeout=20) == 0
    finally:
        server.stop()
    log = server.log_path.read_text()
    # The debug log reached the service group (it says when it shuts a service down), and nothing ran out of time.
    assert "Triggering graceful shutdown" in log, log[-2000:]
    assert "Graceful shutdown took longer than allowed" not in log, log[-2000:]
