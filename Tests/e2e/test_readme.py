"""The README, run as it is written.

The walk-through ("Pushing to it") alone, and then every sh block of the README in order, in one bash, against the
server the walk-through starts, on a fresh folder. Only two things differ from a reader's run, both said here: the
ports (free ones instead of 8443 and 8444, so that tests can run beside a server) and `swift build`, which is skipped
because the suite has built the binary (two builds may not share one .build folder). A block is run unless SKIPPED
below names it with the reason, so that a block added to the README is tried as soon as it is written."""

import json
import os
import pathlib
import re
import subprocess

from conftest import HUDDLE, ROOT, free_port

# The sh blocks that need what a test run does not have, each named by its heading and the start of its first
# command, with why it is left out. Everything else in an sh block runs.
SKIPPED = {
    ("Set up", "swift run huddle serve"):
        "builds Huddle with SwiftPM (the suite has built it, and two builds may not share .build) and runs the "
        "whole suite (scripts/test); its server would also run in the foreground",
    ("PostgreSQL", "huddle migrate --database postgres://"):
        "needs a PostgreSQL server of the reader's own (db.example.com); its huddle serve runs in the foreground",
    ("Without Swift: the release archive", "scripts/release"):
        "builds a static release with Swift (minutes) and a Debian root with mmdebstrap",
    ("In a container", "scripts/release"): "builds a release archive and a container image with podman",
    ("PostgreSQL and two servers: compose.yaml", "scripts/release"):
        "builds a release archive and runs Docker or podman-compose",
    ("What a preview looks like", "huddle preview SCENARIO.json"):
        "a synopsis of the options: SCENARIO.json and push1.apns are placeholders, not files",
    ("Lint in Xcode and SwiftPM", "swift package huddle-lint"):
        "runs in an app's own package, where SwiftPM builds huddle-lint (minutes)",
}


def sh_blocks():
    """Every ```sh block of the README: (heading, README line of its first command, text)."""
    blocks, heading, lines = [], None, (ROOT / "README.md").read_text().splitlines(keepends=True)
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("```"):
            fence, start = line.strip(), index + 1
            index += 1
            while not lines[index].startswith("```"):
                index += 1
            if fence == "```sh":
                blocks.append((heading, start + 1, "".join(lines[start:index])))
        index += 1
    return blocks


def first_command(text):
    return next(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def skip_reason(heading, text):
    command = first_command(text)
    return next((reason for (skipped_heading, start), reason in SKIPPED.items()
                 if skipped_heading == heading and command.startswith(start)), None)


def walkthrough():
    """The first sh block under "## Pushing to it"."""
    return next(text for heading, _, text in sh_blocks() if heading == "Pushing to it")


def repository_like_folder(folder):
    """A folder like the repository's, holding what the README's blocks name: the built binary, the examples and
    the tools; everything the blocks write lands in it."""
    (folder / ".build").mkdir()
    (folder / ".build" / "debug").symlink_to(pathlib.Path(HUDDLE).resolve().parent, target_is_directory=True)
    for name in ("Examples", "Tools"):
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)


PRELUDE = "\n".join([
    "set -euo pipefail",
    # Whatever happens, the servers and streams it started stop with it.
    "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
    'swift() { if [[ $1 == build ]]; then return 0; fi; command swift "$@"; }',
])


def with_free_ports(script, ports):
    for typed, free in ports.items():
        script = script.replace(str(typed), str(free))
    return script


def test_the_readmes_walk_through_works_as_typed(tmp_path):
    script = walkthrough()
    assert "swift build" in script and "8443" in script
    repository_like_folder(tmp_path)
    result = subprocess.run(["bash", "-c", PRELUDE + "\n" + with_free_ports(script, {8443: free_port()})], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env=dict(os.environ, LOG_LEVEL="warning"))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    # huddle send's push, then curl's: the first is the newest's one more, pluralized by the .stringsdict.
    assert "registered key ABC123DEFG of team DEF123GHIJ for com.example.chat" in result.stdout, output
    assert re.search(r"^200 HTTP/1\.1 apns-id: [0-9a-f-]{36}$", result.stdout, re.M), output
    assert "1 more message from Teja\n" in result.stdout, output
    assert re.search(r"200\s+-\s+com\.example\.chat", result.stdout), output


def test_every_sh_block_of_the_readme_runs_as_typed_in_order_against_one_server(tmp_path):
    blocks = sh_blocks()
    ran, skipped, parts = [], [], [PRELUDE]
    for heading, line, text in blocks:
        name = f"{heading} (README.md line {line})"
        reason = skip_reason(heading, text)
        if reason:
            skipped.append(f"{name}: {reason}")
            continue
        ran.append(name)
        # Each block says where it starts, on the merged output, and a failing command names its block.
        parts.append(f"README_BLOCK={json.dumps(name)}")
        parts.append("trap 'echo \"README block failed: $README_BLOCK: $BASH_COMMAND\" >&2' ERR")
        parts.append(f"echo {json.dumps('=== ' + name)}")
        parts.append(text)
    # Every skip names a block that is still there: a reason for a block since rewritten is not kept by mistake.
    stale = [key for key in SKIPPED if not any(heading == key[0] and first_command(text).startswith(key[1])
                                               for heading, _, text in blocks)]
    assert not stale, f"SKIPPED names blocks the README no longer has: {stale}"
    assert ran[0].startswith("Pushing to it"), ran
    summary = "ran, in order:\n  " + "\n  ".join(ran) + "\nskipped:\n  " + "\n  ".join(skipped)
    print(summary)

    repository_like_folder(tmp_path)
    ports = {8443: free_port(), 8444: free_port()}
    result = subprocess.run(["bash", "-c", with_free_ports("\n".join(parts), ports)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=240, env=dict(os.environ, LOG_LEVEL="warning"))
    output = result.stdout
    assert result.returncode == 0, f"{summary}\n\noutput:\n{output}"
    # What each block printed, by the block's name.
    printed = dict(re.findall(r"^=== (.*?)\n(.*?)(?=^=== |\Z)", output, re.S | re.M))
    assert list(printed) == ran, f"{summary}\n\noutput:\n{output}"

    def block(heading):
        return next(text for name, text in printed.items() if name.startswith(heading + " ("))

    assert "1 more message from Teja\n" in block("Pushing to it"), output
    assert re.search(r"^\d+ more messages from Teja", block("Asserting in CI: waits instead of sleeps"), re.M), output
    screenshot = block("A screenshot in CI")
    assert re.search(r"^center\.png: My iPhone · Huddle \(http://127\.0\.0\.1:\d+/devices/[0-9a-f]{64}\), 390x844", screenshot, re.M), output
    assert (tmp_path / "center.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert re.search(r"^200$", block("Certificate authentication"), re.M), output
    fcm = block("Firebase Cloud Messaging")
    assert re.search(r'^200 \{"name":"projects/my-project/messages/', fcm, re.M) and re.search(r"^Teja$", fcm, re.M), output
    expo = block("Expo")
    assert re.search(r"^ExponentPushToken\[[A-Za-z0-9_-]{22}\]$", expo, re.M) and re.search(r'^200 \{"data":\[\{"status":"ok","id":"', expo, re.M), output
    assert re.search(r'^\{"status":"ok"\}$', expo, re.M) and '"expoError":"DeviceNotRegistered"' in expo, output
    summary_block = block("Scheduled summary and Focus")
    assert "com.example.news: held for the 08:00 summary\ncom.example.chat: silenced by the Work Focus\n" in summary_block, output
    assert '{"title":"Your Morning Summary","count":1}' in summary_block, output


def test_the_readmes_scenarios_are_whole_and_preview(tmp_path):
    """The README's scenario snippets are complete files: each previews as it is printed."""
    readme = (ROOT / "README.md").read_text()
    scenarios = [text for text in re.findall(r"```json\n(.*?)```", readme, re.S) if '"events"' in text]
    assert len(scenarios) >= 2
    for number, text in enumerate(scenarios):
        path = tmp_path / f"scenario-{number}.json"
        path.write_text(text)
        run = subprocess.run([str(HUDDLE), "preview", str(path)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, f"the README's scenario {number + 1}:\n{text}\n{run.stderr}"
