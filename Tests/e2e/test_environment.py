"""What containers and service managers rely on (issue 30): every `huddle serve` option set by its HUDDLE_<OPTION>
variable (the command line winning), the README's table of them kept whole, and `huddle health` as a health
check that needs no curl."""

import os
import re
import subprocess

import httpx

from conftest import HUDDLE, ROOT, free_port, wait_for_port, write_certificate

# The server's own environment, less whatever HUDDLE_ variables the test run was started with.
BASE_ENVIRONMENT = {name: value for name, value in os.environ.items() if not name.startswith("HUDDLE_")}


def huddle(*arguments, environment=None, timeout=60):
    return subprocess.run([str(HUDDLE), *map(str, arguments)], capture_output=True, text=True, timeout=timeout,
                          env={**BASE_ENVIRONMENT, **(environment or {})})


def variable(option):
    return "HUDDLE_DATABASE_URL" if option == "database" else "HUDDLE_" + option.upper().replace("-", "_")


def serve_options():
    """The long options `huddle serve --help` lists (the hidden benchmark routes are not listed)."""
    result = huddle("serve", "--help")
    assert result.returncode == 0, result.stderr
    options = re.findall(r"^\s+(?:-\w, )?--([a-z][a-z0-9-]*)", result.stdout, flags=re.MULTILINE)
    return [option for option in dict.fromkeys(options) if option not in ("help", "version")]


class Serving:
    """`huddle serve` started with the given arguments and environment, stopped on leaving."""

    def __init__(self, port, arguments=(), environment=None):
        self.port = port
        self.process = subprocess.Popen([str(HUDDLE), "serve", *map(str, arguments)], env={**BASE_ENVIRONMENT, **(environment or {})},
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def __enter__(self):
        wait_for_port(self.port, self.process)
        return self

    def __exit__(self, *_):
        self.process.terminate()
        self.output, _ = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, self.output


def test_the_readme_table_lists_every_serve_option_and_its_variable():
    readme = (ROOT / "README.md").read_text()
    rows = dict(re.findall(r"^\| `--([a-z0-9-]+)` \| `(HUDDLE_[A-Z0-9_]+)` \|", readme, flags=re.MULTILINE))
    options = serve_options()
    assert len(options) > 20, options
    missing = [option for option in options if option not in rows]
    assert not missing, f"options without a row in the README's table: {missing}"
    stale = [option for option in rows if option not in options]
    assert not stale, f"rows for options huddle serve does not have: {stale}"
    wrong = {option: name for option, name in rows.items() if name != variable(option)}
    assert not wrong, wrong


def test_serve_takes_its_options_from_the_environment(tmp_path):
    port = free_port()
    environment = {
        "HUDDLE_PORT": str(port),
        "HUDDLE_DATABASE_URL": str(tmp_path / "env.sqlite"),
        "HUDDLE_ADMIN_TOKEN": "-starts-with-a-dash",  # a value, even one that looks like an option
        "HUDDLE_MAX_DEVICES": "1",
        "HUDDLE_PUBLIC_HOST": "one.example, two.example",
        "HUDDLE_DEMO": "false",
        "HUDDLE_OPEN_REGISTRATION": "true",
    }
    with Serving(port, environment=environment) as server:
        # huddle health finds the server by HUDDLE_PORT, as serve did (every address is asked on 127.0.0.1).
        health = huddle("health", environment={"HUDDLE_PORT": str(port), "HUDDLE_HOST": "0.0.0.0"})
        assert health.returncode == 0, health.stderr
        assert health.stdout == f"healthy: http://127.0.0.1:{port}/health\n"
        url = f"http://127.0.0.1:{port}"
        admin = httpx.get(f"{url}/v1/admin/requests", headers={"authorization": "Bearer -starts-with-a-dash"})
        assert admin.status_code == 200, admin.text
        # Both public hosts of the list are answered, another host name is not.
        for host, status in [("one.example", 201), ("two.example", 503), ("three.example", 421)]:
            registered = httpx.post(f"{url}/v1/devices", json={"name": host}, headers={"host": host})
            assert registered.status_code == status, (host, registered.text)
        assert (tmp_path / "env.sqlite").exists()
    assert "demo" not in server.output.lower(), server.output


def test_the_command_line_wins_over_the_environment(tmp_path):
    typed, ignored = free_port(), free_port()
    environment = {"HUDDLE_PORT": str(ignored), "HUDDLE_DATABASE_URL": "memory"}
    with Serving(typed, arguments=["--port", typed, "--database=" + str(tmp_path / "typed.sqlite")], environment=environment):
        assert huddle("health", f"http://127.0.0.1:{typed}").returncode == 0
        assert huddle("health", f"http://127.0.0.1:{ignored}", "--timeout", "2").returncode == 1
        assert (tmp_path / "typed.sqlite").exists()


def test_variables_that_cannot_be_options_are_usage_errors(tmp_path):
    cases = [
        ({"HUDDLE_MAX_STREAMS": ""}, "huddle serve: $HUDDLE_MAX_STREAMS is empty: give it a value (--max-streams), or unset it\n"),
        ({"HUDDLE_DEMO": "maybe"}, "huddle serve: $HUDDLE_DEMO is \"maybe\": expected true or false (--demo)\n"),
        ({"HUDDLE_MAX_STREAMS": "lots"}, "--max-streams"),  # ArgumentParser's own words, as for a typed value
    ]
    for environment, words in cases:
        result = huddle("serve", "--port", free_port(), "--database", tmp_path / "never.sqlite", environment=environment, timeout=20)
        assert result.returncode == 64, (environment, result.stderr)
        assert words in result.stderr, (environment, result.stderr)
    assert not (tmp_path / "never.sqlite").exists()


def test_health_says_no_when_the_server_is_not_there_or_not_healthy(tmp_path):
    nothing = free_port()
    absent = huddle("health", f"http://127.0.0.1:{nothing}", "--timeout", "2")
    assert absent.returncode == 1
    assert absent.stderr.startswith(f"huddle health: http://127.0.0.1:{nothing}/health: "), absent.stderr
    port = free_port()
    with Serving(port, arguments=["--port", port, "--database", "memory"]):
        assert huddle("health", f"http://127.0.0.1:{port}/").returncode == 0
        missing = huddle("health", f"http://127.0.0.1:{port}/no-such-page")
        assert missing.returncode == 1
        assert missing.stderr == f"huddle health: http://127.0.0.1:{port}/no-such-page: 404\n"
    usage = huddle("health", "not a url")
    assert usage.returncode == 64, usage.stderr


def test_health_over_tls_checks_the_certificate_of_a_url_it_is_given(tmp_path):
    write_certificate(tmp_path)
    port = free_port()
    environment = {"HUDDLE_PORT": str(port), "HUDDLE_TLS_CERTIFICATE": str(tmp_path / "server.crt"),
                   "HUDDLE_TLS_KEY": str(tmp_path / "server.key"), "HUDDLE_DATABASE_URL": "memory"}
    with Serving(port, environment=environment):
        # Its own server, found through the environment: asked over TLS, whatever the certificate names.
        found = huddle("health", environment=environment)
        assert found.returncode == 0, found.stderr
        assert found.stdout == f"healthy: https://127.0.0.1:{port}/health\n"
        # A URL given is a server elsewhere: its certificate must be trusted.
        untrusted = huddle("health", f"https://localhost:{port}")
        assert untrusted.returncode == 1, untrusted.stdout
        trusted = huddle("health", f"https://localhost:{port}", "--ca-certificate", tmp_path / "server.crt")
        assert trusted.returncode == 0, trusted.stderr
