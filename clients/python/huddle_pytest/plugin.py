"""The pytest plugin: `huddle` gives each test a clean Huddle (a server started once per session, or the one
--huddle-url names) with a registered signing key; `huddle_device` a device with an app on it; `huddle_firebase_app`
Google's Admin SDK sending to that server for one test; `huddle_web_push` a web app's push subscription on an iPhone,
with an application server key to send with; `huddle_expo` Expo's Python server SDK sending to that server."""

import os

import pytest

from .client import Huddle, delete_firebase_app
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


@pytest.fixture
def huddle_web_push(huddle):
    """A web app (https://app.example.com) on a new iPhone, subscribed to push with a new application server key: its
    `info` is the subscription to send to, `vapid_private_key` and `vapid_claims` what pywebpush signs with, and
    `device` the iPhone whose center shows what arrives."""
    return huddle.web_push_subscription()


@pytest.fixture
def huddle_expo(huddle):
    """A `PushClient` of Expo's server SDK for Python that sends to the test's server (`PushClient(host=…)`); a device's
    `expo_token` is what a message is sent to, and its tickets' receipts come from the same server."""
    return huddle.expo_client()


@pytest.fixture
def huddle_firebase_app(huddle):
    """The default Firebase app (firebase_admin) for one test, sending to the test's server: credentials of a service
    account of that server, messages and topic subscriptions to its addresses. Code under test that calls
    `messaging.send(message)` with no `app` uses it. For the test's length `_MessagingService.FCM_URL` points at the
    server too, so that an app the code under test makes itself sends there as well. Deleted when the test ends, so
    that the next test can make its own."""
    app = huddle.firebase_app()
    from firebase_admin import messaging  # there, once firebase_app has said how to install it if it is not

    address = messaging._MessagingService.FCM_URL
    messaging._MessagingService.FCM_URL = huddle.fcm_url()
    try:
        yield app
    finally:
        messaging._MessagingService.FCM_URL = address
        delete_firebase_app(app)
