#!/usr/bin/env python3
"""A PNG of a device's page on a running Huddle, signed in, with nothing but Python's standard library and chromium.

    python3 Tools/screenshot-device.py http://127.0.0.1:8443/devices/$TOKEN $SECRET center.png

The page's address may carry what the page takes (`?locked=true`, `?languages=ru`, `?beside=<Android token>`, with
`--beside-secret` for that phone). Exit status: 0 with the PNG written, 1 when the server refused the secret or the
page did not open signed in and live, 2 for a wrong command line, 69 when chromium or the server cannot be reached.

Why not `chromium --headless --screenshot` alone: the page wants the device's cookie, which chromium's command line
cannot set, and the link that signs in (`/devices/<token>/session#secret=…`) opens the center from its script, a
navigation after the load that `--screenshot` does not follow (it waits forever). So this trades the secret for the
cookie itself, as the sign-in form does, and drives chromium over the DevTools protocol on a pipe (no WebSocket, no
port), waiting until the page's live stream is connected before it takes the picture.
"""

import argparse
import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


class Failure(Exception):
    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def session_cookie(origin, token, secret):
    """The device's web-session cookie (name, value), as the sign-in form gets it: the secret POSTed as JSON."""
    request = urllib.request.Request(f"{origin}/devices/{token}/session", data=json.dumps({"secret": secret}).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            cookies = response.headers.get_all("set-cookie") or []
    except urllib.error.HTTPError as error:
        raise Failure(f"{origin} refused the secret of device {token[:12]}…: {error.code} {error.read().decode(errors='replace')[:300]}")
    except urllib.error.URLError as error:
        raise Failure(f"no Huddle answers at {origin}: {error.reason}", 69)
    for header in cookies:
        name, _, rest = header.partition("=")
        if name.strip() == f"huddle-{token}":
            return name.strip(), rest.split(";", 1)[0]
    raise Failure(f"{origin} signed device {token[:12]}… in without a cookie (is it a Huddle?)")


class Chromium:
    """A headless chromium driven over --remote-debugging-pipe: it reads commands on fd 3 and writes answers and
    events on fd 4, each a JSON message ended by a NUL byte."""

    def __init__(self, binary, deadline):
        self.deadline = deadline
        self.profile = tempfile.TemporaryDirectory(prefix="huddle-screenshot-")
        commands_read, self.commands = os.pipe()
        self.answers, answers_write = os.pipe()
        # Chromium looks for the pipe at fds 3 and 4. In the child, both ends are first copied above 10, so that putting
        # one at 3 cannot overwrite the other; every other fd of this process is close-on-exec (PEP 446).
        def pipes_at_3_and_4():
            commands, answers = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (commands_read, answers_write))
            os.dup2(commands, 3)
            os.dup2(answers, 4)
        arguments = [binary, "--headless", "--remote-debugging-pipe", f"--user-data-dir={self.profile.name}",
                     # CI runs as root or in containers without user namespaces, where chromium's sandbox cannot start;
                     # the only page it opens is the test server's.
                     "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
                     "--disable-extensions", "--mute-audio", "about:blank"]
        # Its log goes to a file, read only if it stops: a pipe nobody reads would stall a chatty chromium.
        self.log = open(os.path.join(self.profile.name, "chromium.log"), "w+b")
        try:
            self.process = subprocess.Popen(arguments, close_fds=False, preexec_fn=pipes_at_3_and_4,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        except OSError as error:
            raise Failure(f"cannot start {binary}: {error}", 69)
        os.close(commands_read)
        os.close(answers_write)
        self.buffer, self.events, self.next_id = b"", [], 0

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (Failure, OSError):  # a chromium that stopped, or does not answer, is waited for or killed below
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self.commands, self.answers):
            os.close(fd)
        self.log.close()
        self.profile.cleanup()

    def _message(self, timeout):
        """The next message from chromium, or None when `timeout` seconds pass without one."""
        until = min(self.deadline, time.monotonic() + timeout)
        while b"\0" not in self.buffer:
            left = until - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.answers], [], [], left)
            if ready:
                chunk = os.read(self.answers, 1 << 20)
                if not chunk:
                    self.log.seek(0)
                    raise Failure(f"chromium stopped: {self.log.read().decode(errors='replace')[-600:]}", 69)
                self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=30):
        """Sends a command and returns its result; events that arrive meanwhile are kept for `wait_for_event`."""
        self.next_id += 1
        command = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self.commands, json.dumps(command).encode() + b"\0")
        until = time.monotonic() + timeout
        while True:
            message = self._message(until - time.monotonic())
            if message is None:
                raise Failure(f"chromium did not answer {method} in time")
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise Failure(f"chromium refused {method}: {message['error'].get('message')}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for_event(self, method, session, timeout):
        until = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(index)
            message = self._message(until - time.monotonic())
            if message is None:
                return None
            self.events.append(message)


# True once the page is a device's page (not the sign-in form) and every phone on it follows its live stream: each
# `.connection` mark shows the text the page keeps for "live", in whatever language it is in.
READY = """(() => {
  if (document.getElementById("unlock")) return "sign-in";
  const marks = [...document.querySelectorAll(".connection")];
  if (marks.length === 0) return "loading";
  return marks.every(mark => mark.textContent === mark.dataset.live) && document.fonts.status === "loaded" ? "live" : "loading";
})()"""


def screenshot(page, secret, out, width, height, scale, beside_secret, binary, timeout):
    parts = urllib.parse.urlsplit(page)
    match = re.fullmatch(r"/devices/([0-9a-fA-F]+)/?", parts.path)
    if parts.scheme not in ("http", "https") or not match:
        raise Failure(f"{page} is not a device's page: give http(s)://HOST:PORT/devices/<token>", 2)
    origin, token = f"{parts.scheme}://{parts.netloc}", match.group(1).lower()
    signed_in = [(token, secret)]
    beside = urllib.parse.parse_qs(parts.query).get("beside")
    if beside:
        if not beside_secret:
            raise Failure("the page shows a second phone (beside=): give its secret with --beside-secret", 2)
        signed_in.append((beside[0].lower(), beside_secret))
    cookies = [session_cookie(origin, device, device_secret) for device, device_secret in signed_in]

    deadline = time.monotonic() + timeout
    browser = Chromium(binary, deadline)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for name, value in cookies:
            browser.send("Network.setCookie", {"name": name, "value": value, "url": origin + "/", "path": "/"}, session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False}, session)
        browser.send("Page.enable", session=session)
        navigation = browser.send("Page.navigate", {"url": page}, session)
        if navigation.get("errorText"):
            raise Failure(f"chromium could not open {page}: {navigation['errorText']}", 69)
        if browser.wait_for_event("Page.loadEventFired", session, deadline - time.monotonic()) is None:
            raise Failure(f"{page} did not load within {timeout} s")
        state = "loading"
        while time.monotonic() < deadline:
            state = browser.send("Runtime.evaluate", {"expression": READY, "returnByValue": True}, session)["result"].get("value")
            if state != "loading":
                break
            time.sleep(0.1)
        if state == "sign-in":
            raise Failure(f"{page} asked for the device's secret although its cookie was set")
        if state != "live":
            raise Failure(f"{page} did not connect its live stream within {timeout} s")
        # Two frames, so that what the last stream event changed is painted before the picture.
        browser.send("Runtime.evaluate", {"expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
                                          "awaitPromise": True}, session)
        about = browser.send("Runtime.evaluate", {"expression": "[document.title, location.href]", "returnByValue": True},
                             session)["result"]["value"]
        png = base64.b64decode(browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"])
    finally:
        browser.close()
    with open(out, "wb") as file:
        file.write(png)
    return about


def main():
    parser = argparse.ArgumentParser(description="A PNG of a device's page on a running Huddle, signed in (python3 and chromium only).")
    parser.add_argument("page", help="the device's page: http://127.0.0.1:8443/devices/<token>, with ?locked=true, ?languages=… as wanted")
    parser.add_argument("secret", help="the device's secret (what registering it gave)")
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("--size", default="390x844", help="the viewport in CSS pixels, WIDTHxHEIGHT (default: 390x844, a phone)")
    parser.add_argument("--scale", type=float, default=1, help="device pixels per CSS pixel (default: 1)")
    parser.add_argument("--beside-secret", help="the secret of the phone ?beside= names")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM"),
                        help="the browser (default: $CHROMIUM, else chromium, chromium-browser or google-chrome on PATH)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds for the whole run (default: 30)")
    arguments = parser.parse_args()
    size = re.fullmatch(r"(\d+)x(\d+)", arguments.size)
    if not size:
        parser.error("--size takes WIDTHxHEIGHT, e.g. 1280x900")
    binary = arguments.chromium or next(filter(None, map(shutil.which, ["chromium", "chromium-browser", "google-chrome"])), None)
    if not binary:
        print("screenshot-device: no chromium on PATH: install it (Debian: apt-get install chromium) or give --chromium", file=sys.stderr)
        return 69
    try:
        title, address = screenshot(arguments.page, arguments.secret, arguments.out, int(size.group(1)), int(size.group(2)),
                                    arguments.scale, arguments.beside_secret, binary, arguments.timeout)
    except Failure as failure:
        print(f"screenshot-device: {failure}", file=sys.stderr)
        return failure.status
    print(f"{arguments.out}: {title} ({address}), {arguments.size} at {arguments.scale:g}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
