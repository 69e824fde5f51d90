"""A small Server-Sent Events reader over httpx, for the stream tests."""
import json


class Event:
    def __init__(self, name, data, event_id):
        self.name = name
        self.data = data
        self.id = event_id

    def json(self):
        return json.loads(self.data)

    def __repr__(self):
        return f"Event({self.name!r}, id={self.id!r}, {self.data[:80]!r})"


class Parser:
    """Turns lines into events; comments (heartbeats) and `retry:` are counted, not returned."""

    def __init__(self):
        self.name, self.data, self.id = "message", [], None
        self.comments = 0

    def feed(self, line):
        if line == "":
            event = Event(self.name, "\n".join(self.data), self.id) if self.data else None
            self.name, self.data = "message", []
            return event
        if line.startswith(":"):
            self.comments += 1
            return None
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self.name = value
        elif field == "data":
            self.data.append(value)
        elif field == "id":
            self.id = value
        return None


def events(response, parser=None):
    """The events of a streaming httpx response."""
    parser = parser or Parser()
    for line in response.iter_lines():
        event = parser.feed(line)
        if event:
            yield event


class DeviceStream:
    """A device's center stream, read on a thread of its own until an event named `until` comes (or, given a
    function, an event for which it is true).

    `start()` returns once the stream is open (its first event, the whole center, has come), so that what a
    test does next happens while the stream listens; `received` holds every event so far, and `join()` waits
    for the stream to end."""

    def __init__(self, server, device, until):
        import threading
        import httpx

        self.received = []
        self._opened = threading.Event()

        def listen():
            with httpx.stream("GET", f"{server.url}/v1/devices/{device['token']}/stream",
                              headers={"authorization": f"Bearer {device['secret']}"}, timeout=30) as stream:
                for event in events(stream):
                    self.received.append(event)
                    self._opened.set()
                    if until(event) if callable(until) else event.name == until:
                        return

        self._thread = threading.Thread(target=listen, daemon=True)

    def start(self, timeout=10):
        self._thread.start()
        assert self._opened.wait(timeout), "the device's stream did not open"
        return self

    def join(self, timeout=20):
        self._thread.join(timeout)
        return self.received
