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
