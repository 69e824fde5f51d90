"""The pytest plugin: `huddle` gives each test a clean Huddle (a server started once per session, or the one
--huddle-url names) with a registered signing key; `huddle_device` a device with an app on it."""

import os

import pytest

from .client import Huddle
from .server import HuddleServer


def pytest_addoption(parser):
    group = parser.getgroup("huddle")
    group.addoption("--huddle-url", default=os.environ.get("HUDDLE_URL"),
                    help="a running Huddle to test against (its admin token in HUDDLE_ADMIN_TOKEN); default: start one")
    group.addoption("--huddle-binary", default=None, help="the huddle binary to start (default: HUDDLE_BINARY, else huddle on PATH)")


@pytest.fixture(scope="session")
def huddle_server(request):
    """The session's server: (url, admin token)."""
    url = request.config.getoption("--huddle-url")
    if url:
        token = os.environ.get("HUDDLE_ADMIN_TOKEN")
        if not token:
            pytest.fail("--huddle-url needs the server's admin token in HUDDLE_ADMIN_TOKEN")
        yield url, token
        return
    server = HuddleServer(binary=request.config.getoption("--huddle-binary"))
    yield server.url, server.admin_token
    server.stop()


@pytest.fixture
def huddle(huddle_server):
    """A clean Huddle for one test: no devices and no request history, and a signing key of its own."""
    url, token = huddle_server
    client = Huddle(url, token)
    client.reset()
    yield client
    client.close()


@pytest.fixture
def huddle_device(huddle):
    """A device with `com.example.app` installed."""
    return huddle.device()
