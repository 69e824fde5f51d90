"""A `huddle serve` of the test's own, on a free port, stopped when the test session ends."""

import os
import shutil
import socket
import subprocess
import tempfile
import time

import httpx


class HuddleServer:
    """Starts the `huddle` binary (HUDDLE_BINARY, else `huddle` on PATH) on a free loopback port with an admin token,
    and waits until it answers /health."""

    def __init__(self, binary=None, admin_token="huddle-pytest", extra=(), startup_timeout=30):
        self.binary = binary or os.environ.get("HUDDLE_BINARY") or shutil.which("huddle")
        if not self.binary:
            raise RuntimeError("no huddle binary: set HUDDLE_BINARY, put huddle on PATH, or give --huddle-url of a running server")
        self.admin_token = admin_token
        self.directory = tempfile.TemporaryDirectory(prefix="huddle-pytest-")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(self.directory.name, "serve.log")
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--database", os.path.join(self.directory.name, "huddle.sqlite"),
             "--admin-token", admin_token, *extra],
            stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_until_healthy(startup_timeout)

    def _wait_until_healthy(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"huddle serve exited with {self.process.returncode}: {self.log()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"huddle serve did not answer /health within {timeout} s: {self.log()}")

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return log.read()[-4000:]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log.close()
        self.directory.cleanup()
