"""The commands the home page and a device's page show, run as they are shown (bash, the real `huddle`
and curl) against a real `huddle serve`: a device made with "Create and open" takes them at once (it comes
with the example app, whose summary pluralizes), a device registered through the API shows the command
that installs an app first, and on a server that wants provider tokens only the placeholders a user fills
in (the key file, the team, $JWT) change."""
import os
import re
import subprocess

import httpx
import pytest
from playwright.sync_api import expect

from conftest import ADMIN_TOKEN, HUDDLE, KEY_ID, TEAM_ID, Server, register_key, signing_key
from jwt_tokens import token


@pytest.fixture(scope="module")
def development(tmp_path_factory):
    server = Server(str(tmp_path_factory.mktemp("first-push-dev")), tls=False, extra=["--development"])
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """A directory to run the commands in, with `huddle` on the PATH as a user has it after installing."""
    directory = tmp_path_factory.mktemp("shell")
    bin_directory = directory / "bin"
    bin_directory.mkdir()
    (bin_directory / "huddle").symlink_to(HUDDLE)
    return directory


def run(shell, command, **variables):
    """Runs a command as a user pastes it into bash, in the shell directory."""
    environment = {**os.environ, "PATH": f"{shell / 'bin'}:{os.environ['PATH']}", **variables}
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=shell, env=environment,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, (command, result.stdout, result.stderr)
    return result.stdout


def assert_pushed(output, command):
    """`huddle send` prints the status first; curl prints nothing for a 200 (APNs answers with no body) and
    the reason of a refusal."""
    if command.lstrip().startswith("echo"):
        assert output.startswith("200 "), output
    else:
        assert output.strip() == "", output


def new_browser_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    refused = []
    page.on("response", lambda response: refused.append(f"{response.status} {response.url}") if response.status >= 400 else None)
    return page, refused


def center_count(server, token, cookie):
    response = httpx.get(f"{server.url}/v1/devices/{token}/center", cookies=cookie)
    assert response.status_code == 200, response.text
    return sum(group["count"] for group in response.json()["groups"])


def test_create_and_open_gives_commands_that_work_as_shown(development, shell, browser):
    page, refused = new_browser_page(browser)
    page.goto(f"{development.url}/")
    expect(page.locator("#new-device .hint")).to_contain_text("com.example.chat")
    page.get_by_role("button", name="Create and open").click()
    expect(page.locator("#connection")).to_have_text("live")
    token = re.search(r"/devices/([0-9a-f]{64})$", page.url).group(1)
    # Opened with the cookie the redirect brought: no request of the page was refused on the way.
    assert refused == [], refused
    cookie = {c["name"]: c["value"] for c in page.context.cookies() if c["name"] == f"huddle-{token}"}
    empty = page.locator("#empty")
    expect(empty.locator(".install-command")).to_have_count(0)
    send = empty.locator(".send-command").text_content()
    curl = empty.locator(".curl-command").text_content()
    assert "--topic com.example.chat" in send and "apns-topic: com.example.chat" in curl

    assert_pushed(run(shell, send), send)
    stack = page.locator(".stack")
    expect(stack).to_have_count(1)
    expect(stack.locator(".summary")).to_have_count(0)
    assert_pushed(run(shell, curl), curl)
    # The second sums up the first in the app's singular form.
    expect(stack.locator(".summary")).to_have_text("1 more message from Teja")
    page.select_option("#language", "ru")
    expect(page.locator(".stack .summary")).to_have_text("Ещё 1 сообщение от Teja")

    # The admin's list shows the same device with commands that work too.
    page.goto(f"{development.url}/")
    page.fill("#admin-token", ADMIN_TOKEN)
    page.click("#show-devices")
    listed = page.locator(f'.listed-device[data-token="{token}"]')
    expect(listed.locator(".install-command")).to_have_count(0)
    for command in [listed.locator(".send-command").text_content(), listed.locator(".curl-command").text_content()]:
        assert_pushed(run(shell, command), command)
    assert center_count(development, token, cookie) == 4
    page.context.close()


def test_a_device_without_apps_shows_the_install_command_first(development, shell, browser):
    device = httpx.post(f"{development.url}/v1/devices", json={"name": "API device"}).json()
    page, refused = new_browser_page(browser)
    page.goto(f"{development.url}/devices/{device['token']}/session#secret={device['secret']}")
    expect(page.locator("#connection")).to_have_text("live")
    assert refused == [], refused
    empty = page.locator("#empty")
    expect(empty).to_contain_text("It has no app yet: install one first, with the secret its registration gave ($SECRET):")
    install = empty.locator(".install-command").text_content()
    commands = [install, empty.locator(".send-command").text_content(), empty.locator(".curl-command").text_content()]
    # Shown before the pushes, as the order to run them in.
    texts = empty.locator("pre code").all_text_contents()
    assert texts == commands, texts
    # Without the app, the push is refused as APNs refuses a token that is not the topic's.
    failed = subprocess.run(["bash", "-c", commands[1]], cwd=shell, capture_output=True, text=True,
                            env={**os.environ, "PATH": f"{shell / 'bin'}:{os.environ['PATH']}"})
    assert failed.returncode == 1 and "DeviceTokenNotForTopic" in failed.stdout, failed
    assert '"name":"Chat"' in run(shell, install, SECRET=device["secret"])
    for command in commands[1:]:
        assert_pushed(run(shell, command), command)
    expect(page.locator(".stack .summary")).to_have_text("1 more notification from Teja")
    page.context.close()


def test_with_provider_tokens_only_the_placeholders_change(tmp_path, shell, browser):
    server = Server(str(tmp_path), tls=False)
    try:
        key_path, p8, public = signing_key(tmp_path)
        register_key(server, public, topics=("com.example.chat",))
        page, refused = new_browser_page(browser)
        page.goto(f"{server.url}/")
        page.get_by_role("button", name="Create and open").click()
        expect(page.locator("#connection")).to_have_text("live")
        assert refused == [], refused
        empty = page.locator("#empty")
        expect(empty.locator(".hint")).to_contain_text("--development")
        send = empty.locator(".send-command").text_content()
        curl = empty.locator(".curl-command").text_content()
        assert "--key AuthKey_KEYID.p8 --team-id TEAMID" in send and '"authorization: bearer $JWT"' in curl
        filled = send.replace("AuthKey_KEYID.p8", str(key_path)).replace("TEAMID", TEAM_ID)
        assert_pushed(run(shell, filled), filled)
        assert_pushed(run(shell, curl, JWT=token(p8, KEY_ID, TEAM_ID)), curl)
        expect(page.locator(".stack .summary")).to_have_text("1 more message from Teja")
        page.context.close()
    finally:
        server.stop()
