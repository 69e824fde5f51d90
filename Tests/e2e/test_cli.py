"""The command line's errors, as a user meets them: each names what is wrong in plain words, and its exit
status says which kind of failure it was (64 usage, 65 bad input, 66 a missing file, 1 a refusal by the
server, 69 a server that cannot be reached or a port that cannot be listened on), as `huddle --help` lists."""

import re
import socket
import subprocess

import httpx

from conftest import ADMIN_TOKEN, HUDDLE, KEY_ID, ROOT, TEAM_ID, TOPIC, Server, free_port, register_device, signing_key


def huddle(*arguments, cwd=None):
    return subprocess.run([str(HUDDLE), *map(str, arguments)], capture_output=True, text=True, timeout=60, cwd=cwd)


def test_help_lists_the_exit_statuses():
    result = huddle("--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for words in ["64 a wrong command line", "65 input that cannot be read", "66 a file that is missing", "69 a server that cannot be reached"]:
        assert words in text, result.stdout


def test_a_missing_payload_file_is_named_in_plain_words(tmp_path):
    result = huddle("send", tmp_path / "push.json", "--device", "ab" * 32, "--topic", TOPIC)
    assert result.returncode == 66
    assert result.stderr == f"huddle send: the payload {tmp_path / 'push.json'}: no such file\n"
    assert "NSCocoaErrorDomain" not in result.stderr


def test_a_server_that_is_not_there_is_not_a_refusal(tmp_path):
    payload = tmp_path / "push.json"
    payload.write_text('{"aps": {"alert": "hi"}}')
    port = free_port()
    result = huddle("send", payload, "--url", f"http://127.0.0.1:{port}", "--device", "ab" * 32, "--topic", TOPIC)
    assert result.returncode == 69
    assert result.stderr.startswith(f"huddle send: http://127.0.0.1:{port}: ") and "server running" in result.stderr, result.stderr
    requests = huddle("requests", "--server", f"http://127.0.0.1:{port}", "--admin-token", "x")
    assert requests.returncode == 69, requests.stderr


def test_a_busy_port_says_which_and_the_option_that_changes_it(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = huddle("serve", "--port", port, "--database", tmp_path / "h.sqlite")
    assert result.returncode == 69
    assert f"huddle serve: 127.0.0.1:{port} is in use by another program; choose another port with --port" in result.stderr
    assert "listening" not in result.stderr.lower(), result.stderr
    assert "bind(descriptor" not in result.stderr


def test_a_wrong_admin_token_is_a_refusal_not_a_usage_error(tmp_path):
    server = Server(tmp_path, tls=False)
    try:
        result = huddle("requests", "--server", server.url, "--admin-token", "wrong")
        assert result.returncode == 1
        assert result.stderr.startswith(f"huddle requests: {server.url}/v1/admin/requests") and " 401 " in result.stderr, result.stderr
        assert "Usage" not in result.stderr + result.stdout
    finally:
        server.stop()


def test_keys_go_to_a_running_server_and_never_into_a_new_database(tmp_path):
    path, _, _ = signing_key(tmp_path)
    # No server named and no database here: refused, and nothing is created.
    refused = huddle("keys", "add", "--key-id", KEY_ID, "--team-id", TEAM_ID, "--public-key", path, cwd=tmp_path)
    assert refused.returncode == 66
    assert "huddle keys add: no Huddle database at huddle.sqlite: give --server" in refused.stderr, refused.stderr
    assert not (tmp_path / "huddle.sqlite").exists()

    server = Server(tmp_path, tls=False)
    try:
        device = register_device(server)
        target = ["--server", server.url, "--admin-token", ADMIN_TOKEN]
        added = huddle("keys", "add", *target, "--key-id", KEY_ID, "--team-id", TEAM_ID, "--public-key", path, "--topic", TOPIC)
        assert added.returncode == 0, added.stderr
        assert huddle("keys", "list", *target).stdout == f"{KEY_ID}  team {TEAM_ID}  topics: {TOPIC}\n"
        # A token `huddle token` prints is one the running server accepts.
        token = huddle("token", "--key", path, "--team-id", TEAM_ID)
        assert token.returncode == 0 and token.stdout.count(".") == 2, token.stderr
        push = httpx.post(f"{server.url}/3/device/{device['token']}", content='{"aps": {"alert": "hi"}}',
                          headers={"apns-topic": TOPIC, "authorization": f"bearer {token.stdout.strip()}"})
        assert push.status_code == 200, push.text
        assert huddle("keys", "remove", *target, KEY_ID).stdout == f"removed key {KEY_ID}\n"
        gone = huddle("keys", "remove", *target, KEY_ID)
        assert gone.returncode == 1 and " 404 " in gone.stderr, gone.stderr
        wrong = huddle("keys", "list", "--server", server.url, "--admin-token", "wrong")
        assert wrong.returncode == 1 and " 401 " in wrong.stderr
    finally:
        server.stop()


def test_a_key_that_is_not_a_key_is_bad_input(tmp_path):
    not_a_key = tmp_path / "AuthKey_ABC123DEFG.p8"
    not_a_key.write_text("hello")
    result = huddle("token", "--key", not_a_key, "--team-id", TEAM_ID)
    assert result.returncode == 65
    assert result.stderr.startswith(f"huddle token: the key {not_a_key}: not a P-256 private key"), result.stderr
    missing = huddle("token", "--key", tmp_path / "none.p8", "--key-id", KEY_ID, "--team-id", TEAM_ID)
    assert missing.returncode == 66 and "no such file" in missing.stderr


def test_plural_version_names_the_cldr_release_of_its_rules():
    """Issue 44: which CLDR the plural rules come from, as the generator's Babel reports it (Tools/cldr_babel.py)."""
    table = (ROOT / "Sources/HuddleLocalization/Plurals/PluralRuleTable.swift").read_text()
    cldr = re.search(r'static let cldrVersion = "([0-9.]+)"', table).group(1)
    assert cldr == "49"
    result = huddle("plural", "--version")
    assert result.returncode == 0 and result.stdout.endswith(f", plural rules of CLDR {cldr}\n"), result.stdout


def test_version_names_the_version_and_the_commit_or_says_it_has_none():
    result = huddle("--version")
    assert result.returncode == 0
    number = re.search(r'static let number = "([^"]+)"', (ROOT / "Sources/huddle/Version.swift").read_text()).group(1)
    assert re.fullmatch(rf"huddle {re.escape(number)} \((commit [0-9a-f]{{12}}(-dirty)?|built from source, commit not recorded)\)\n",
                        result.stdout), result.stdout
