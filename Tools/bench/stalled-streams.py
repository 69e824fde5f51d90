#!/usr/bin/env python3
"""What stalled live streams cost a server: its memory, and the time of a change every stream must see.

Starts `huddle serve` (HUDDLE_BINARY, default .build/release/huddle) on a fresh SQLite file, gives a device a
center of 300 notifications, opens STREAMS event streams that never read (spread over enough devices to stay
within --max-streams-per-device, each stream asking for another language so that none shares a rendering),
then changes each device's app settings ROUNDS times. Prints the server's resident memory before and after
and the slowest settings change, and how many streams the server closed for falling behind.

    python3 Tools/bench/stalled-streams.py [STREAMS] [ROUNDS]
"""
import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("HUDDLE_BINARY", str(ROOT / ".build" / "release" / "huddle"))
STREAMS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PER_DEVICE = 64
LANGUAGES = ["en", "de", "fr", "ru", "ja", "ar", "es", "it", "pt", "nl", "sv", "pl", "tr", "ko", "zh", "he"]
TOPIC = "com.example.chat"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(method, url, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=120) as response:
        text = response.read()
        return json.loads(text) if text else None


def resident_megabytes(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_streams(base):
    metrics = urllib.request.urlopen(f"{base}/metrics", timeout=30).read().decode()
    return sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("huddle_live_streams"))


def stalled_stream(port, device, language):
    connection = socket.socket()
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    connection.connect(("127.0.0.1", port))
    connection.sendall((
        f"GET /v1/devices/{device['token']}/stream?languages={language} HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {device['secret']}\r\nAccept: text/event-stream\r\n\r\n").encode())
    return connection


def main():
    directory = tempfile.mkdtemp(prefix="huddle-stalled-")
    port = free_port()
    server = subprocess.Popen(
        [BINARY, "serve", "--port", str(port), "--database", f"{directory}/huddle.sqlite", "--development",
         "--max-streams-per-device", str(PER_DEVICE), "--max-streams", str(STREAMS + 10)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                request("GET", f"{base}/health")
                break
            except OSError:
                time.sleep(0.1)
        devices = []
        for _ in range((STREAMS + PER_DEVICE - 1) // PER_DEVICE):
            device = request("POST", f"{base}/v1/devices", {"name": "stalled"})
            request("PUT", f"{base}/v1/devices/{device['token']}/apps/{TOPIC}", {"categories": [
                {"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}, device["secret"])
            for index in range(300):
                request("POST", f"{base}/v1/devices/{device['token']}/apps/{TOPIC}/notifications", {"content": {
                    "title": f"Person {index % 7}", "body": "x" * 500, "threadIdentifier": f"t{index % 30}",
                    "categoryIdentifier": "msg", "summaryArgument": f"Person {index % 7}"}}, device["secret"])
            devices.append(device)
        before = resident_megabytes(server.pid)
        started = time.monotonic()
        sockets = [stalled_stream(port, devices[index // PER_DEVICE], LANGUAGES[index % len(LANGUAGES)]) for index in range(STREAMS)]
        # Each new stream starts with a rendering of its center: wait until the server has opened them all.
        while open_streams(base) < STREAMS and time.monotonic() - started < 600:
            time.sleep(0.5)
        print(f"opening the streams took {time.monotonic() - started:.1f} s")
        opened = resident_megabytes(server.pid)
        slowest = 0.0
        for round in range(ROUNDS):
            grouping = "off" if round % 2 == 0 else "automatic"
            for device in devices:
                started = time.monotonic()
                request("PATCH", f"{base}/v1/devices/{device['token']}/apps/{TOPIC}/settings", {"grouping": grouping}, device["secret"])
                slowest = max(slowest, time.monotonic() - started)
        time.sleep(2)
        after = resident_megabytes(server.pid)
        print(f"{STREAMS} stalled streams on {len(devices)} devices, {ROUNDS} settings changes per device")
        print(f"resident memory: {before:.0f} MB before the streams, {opened:.0f} MB with them open, {after:.0f} MB after the changes")
        print(f"slowest settings change: {slowest * 1000:.0f} ms")
        print(f"streams still open: {open_streams(base):.0f}")
        for connection in sockets:
            connection.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
