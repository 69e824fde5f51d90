"""Apple's two environments (issue 29): a device token belongs to development or production, a request goes to
the environment its :authority names (Apple's production host, else development), and the other environment
answers the token BadDeviceToken; a key restricted to one environment is refused in the other with
BadEnvironmentKeyInToken. The most common production bug, a sandbox token sent to production, shows here."""

import json
import subprocess
import uuid

import httpx
import pytest

from conftest import ADMIN_TOKEN, HUDDLE, KEY_ID, TEAM_ID, TOPIC, Server, register_device, signing_key
from jwt_tokens import token

SANDBOX = "api.sandbox.push.apple.com"
PRODUCTION = "api.push.apple.com"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


def register(server, environment=None):
    body = {"name": "build"} | ({"environment": environment} if environment else {})
    device = httpx.post(f"{server.url}/v1/devices", json=body).json()
    answer = httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}",
                       headers={"authorization": f"Bearer {device['secret']}"}, json={})
    assert answer.status_code == 200, answer.text
    return device


def push(server, device, host=None, jwt=None):
    headers = {"apns-topic": TOPIC} | ({"host": host} if host else {}) | ({"authorization": f"bearer {jwt}"} if jwt else {})
    return httpx.post(f"{server.url}/3/device/{device['token']}", headers=headers, json={"aps": {"alert": "hi"}})


def test_a_token_answers_only_in_its_own_environment(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        xcode, release = register(server), register(server, "production")
        assert xcode["environment"] == "development" and release["environment"] == "production"
        described = httpx.get(f"{server.url}/v1/devices/{release['token']}", headers={"authorization": f"Bearer {release['secret']}"})
        assert described.json()["environment"] == "production"
        # Each in its own: accepted; development answers an apns-unique-id, production does not.
        sandbox = push(server, xcode, SANDBOX)
        assert sandbox.status_code == 200 and "apns-unique-id" in sandbox.headers
        production = push(server, release, PRODUCTION)
        assert production.status_code == 200 and "apns-unique-id" not in production.headers
        # A client pointed at Huddle by any other name talks to development.
        assert push(server, xcode).status_code == 200
        # Crossed: the sandbox token in production, the release token in the sandbox.
        crossed = push(server, xcode, PRODUCTION)
        assert crossed.status_code == 400 and crossed.json()["reason"] == "BadDeviceToken"
        assert "a development one (api.sandbox.push.apple.com)" in crossed.json()["description"]
        assert push(server, release, SANDBOX).json()["reason"] == "BadDeviceToken"
        # The inspector says which environment each request went to.
        records = httpx.get(f"{server.url}/v1/admin/requests", headers=ADMIN, params={"device": xcode["token"]}).json()["requests"]
        assert sorted(r["connection"]["environment"] for r in records) == ["development", "development", "production"]
        refused = httpx.post(f"{server.url}/v1/devices", json={"environment": "staging"})
        assert refused.status_code == 400 and "environment" in refused.text
    finally:
        server.stop()


def test_a_key_restricted_to_one_environment_is_refused_in_the_other(tmp_path):
    server = Server(tmp_path, tls=False)
    try:
        p8_path, p8, public = signing_key(tmp_path)
        added = subprocess.run(
            [str(HUDDLE), "keys", "add", "--server", server.url, "--admin-token", ADMIN_TOKEN, "--key-id", KEY_ID, "--team-id", TEAM_ID,
             "--public-key", str(p8_path), "--environment", "production"], capture_output=True, text=True, timeout=60)
        assert added.returncode == 0, added.stderr
        assert "in production only" in added.stdout
        assert httpx.get(f"{server.url}/v1/admin/keys", headers=ADMIN).json()[0]["environments"] == ["production"]
        release, xcode = register(server, "production"), register(server)
        jwt = token(p8, KEY_ID, TEAM_ID)
        assert push(server, release, PRODUCTION, jwt).status_code == 200
        with httpx.Client() as client:
            # A new connection: one connection is bound to one key's first push, which is not what this tests.
            wrong = client.post(f"{server.url}/3/device/{xcode['token']}", json={"aps": {"alert": "hi"}},
                                headers={"apns-topic": TOPIC, "host": SANDBOX, "authorization": f"bearer {jwt}"})
        assert wrong.status_code == 403 and wrong.json()["reason"] == "BadEnvironmentKeyInToken"
        assert "may be used in production only" in wrong.json()["description"]
        # Both environments again: accepted in the sandbox too.
        both = httpx.put(f"{server.url}/v1/admin/keys/{KEY_ID}", headers=ADMIN,
                         json={"teamID": TEAM_ID, "publicKey": public, "environments": ["development", "production"]})
        assert both.status_code == 200 and both.json()["environments"] == ["development", "production"]
        assert push(server, xcode, SANDBOX, jwt).status_code == 200
        nowhere = httpx.put(f"{server.url}/v1/admin/keys/{KEY_ID}", headers=ADMIN, json={"teamID": TEAM_ID, "publicKey": public, "environments": []})
        assert nowhere.status_code == 400
    finally:
        server.stop()


def test_http2_clients_choose_by_authority(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        release = register(server, "production")
        with httpx.Client(http1=False, http2=True) as client:
            # httpx sends the Host header as HTTP/2's :authority.
            answer = client.post(f"{server.url}/3/device/{release['token']}", json={"aps": {"alert": "hi"}},
                                 headers={"apns-topic": TOPIC, "host": PRODUCTION, "apns-id": str(uuid.uuid4())})
            assert answer.http_version == "HTTP/2" and answer.status_code == 200, answer.text
    finally:
        server.stop()


def test_huddle_send_names_the_environment_it_pushes_to(tmp_path):
    server = Server(tmp_path, tls=False, extra=("--development",))
    try:
        release, xcode = register(server, "production"), register(server)
        (tmp_path / "push.json").write_text(json.dumps({"aps": {"alert": "hi"}}))

        def send(device, environment):
            return subprocess.run([str(HUDDLE), "send", str(tmp_path / "push.json"), "--url", server.url, "--device", device["token"],
                                   "--topic", TOPIC, "--environment", environment], capture_output=True, text=True, timeout=60)

        assert send(release, "production").stdout.startswith("200 ")
        crossed = send(xcode, "production")
        assert crossed.returncode == 1 and "BadDeviceToken" in crossed.stdout
        assert send(xcode, "development").stdout.startswith("200 ")
    finally:
        server.stop()
