#!/usr/bin/env python3
"""What an idle server spends on scheduled summaries: devices whose summary holds a notification and whose settings are
the largest the server takes, then the server's CPU seconds per second and resident memory while nothing happens (its
summary service still looks every second).

    Tools/bench/idle-summaries.py HUDDLE_BINARY [--devices 100] [--seconds 20] [--app-bytes 255] [--database URL]

The settings' allowed apps are as long as --app-bytes (255 is the longest a Focus takes now; a build before issue 56
took any length, so a larger figure shows what it cost then). Linux only: it reads /proc.
"""
import argparse
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time

import httpx

TOPIC = "com.example.summary"


def free_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_megabytes(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def set_up(url, devices, app_bytes):
    allowed = [f"{n:03d}." + "a" * (app_bytes - 4) for n in range(256)]
    with httpx.Client(base_url=url, timeout=60) as client:
        for _ in range(devices):
            device = client.post("/v1/devices", json={"name": "Summary"}).json()
            auth = {"authorization": f"Bearer {device['secret']}"}
            base = f"/v1/devices/{device['token']}"
            assert client.put(f"{base}/apps/{TOPIC}", headers=auth, json={"settings": {"scheduledSummary": True}}).status_code == 200
            # A summary an hour before now (UTC) holds the notification for almost a day.
            hour = (time.gmtime().tm_hour + 23) % 24
            settings = client.patch(f"{base}/settings", headers=auth, json={
                "summary": {"enabled": True, "times": [f"{hour:02d}:00"]}, "focus": {"name": "Work", "allowedApps": allowed}})
            assert settings.status_code == 200, settings.text[:200]
            local = client.post(f"{base}/apps/{TOPIC}/notifications", headers=auth, json={"content": {"title": "Held"}})
            assert local.status_code == 201, local.text[:200]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("huddle")
    parser.add_argument("--devices", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--app-bytes", type=int, default=255)
    parser.add_argument("--database", help="a PostgreSQL URL; a new SQLite file when absent")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        port = free_port()
        database = arguments.database or str(pathlib.Path(directory) / "idle.sqlite")
        with open(pathlib.Path(directory) / "serve.log", "wb") as log:
            server = subprocess.Popen([arguments.huddle, "serve", "--port", str(port), "--database", database,
                                       "--max-devices", str(arguments.devices + 10)], stdout=log, stderr=subprocess.STDOUT)
            try:
                url = f"http://127.0.0.1:{port}"
                for _ in range(300):
                    try:
                        if httpx.get(f"{url}/health").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    time.sleep(0.1)
                else:
                    raise SystemExit(f"huddle serve did not answer /health within 30 s (see {directory}/serve.log)")
                started = time.time()
                set_up(url, arguments.devices, arguments.app_bytes)
                setup_seconds = time.time() - started
                idle_memory = resident_megabytes(server.pid)
                time.sleep(2)
                before, clock = cpu_seconds(server.pid), time.monotonic()
                time.sleep(arguments.seconds)
                spent = (cpu_seconds(server.pid) - before) / (time.monotonic() - clock)
                print(f"{arguments.devices} devices holding a notification, allowed apps of {arguments.app_bytes} bytes "
                      f"(set up in {setup_seconds:.1f} s): {spent:.3f} CPU-seconds per second idle, "
                      f"{resident_megabytes(server.pid):.0f} MB resident ({idle_memory:.0f} MB after set-up)")
            finally:
                server.terminate()
                server.wait(timeout=20)


if __name__ == "__main__":
    sys.exit(main())
