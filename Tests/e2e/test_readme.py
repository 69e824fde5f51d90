"""The README's walk-through ("Pushing to it"), run as it is written: every command in order, in one bash, on a
fresh folder, against the server it starts itself. Only two things differ from a reader's run, both said here:
the port (a free one instead of 8443, so that tests can run beside a server) and `swift build`, which is
skipped because the suite has built the binary (two builds may not share one .build folder)."""

import os
import pathlib
import re
import subprocess

from conftest import HUDDLE, ROOT, free_port


def walkthrough():
    """The first sh block under "## Pushing to it"."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Pushing to it\n", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "the README's walk-through has no sh block"
    return match.group(1)


def test_the_readmes_walk_through_works_as_typed(tmp_path):
    script = walkthrough()
    assert "swift build" in script and "8443" in script
    port = free_port()
    # A folder like the repository's, holding what the walk-through names: the built binary and the examples.
    (tmp_path / ".build").mkdir()
    (tmp_path / ".build" / "debug").symlink_to(pathlib.Path(HUDDLE).resolve().parent, target_is_directory=True)
    (tmp_path / "Examples").symlink_to(ROOT / "Examples", target_is_directory=True)
    prelude = "\n".join([
        "set -euo pipefail",
        # Whatever happens, the server it started stops with it.
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
        'swift() { if [[ $1 == build ]]; then return 0; fi; command swift "$@"; }',
    ])
    result = subprocess.run(["bash", "-c", prelude + "\n" + script.replace("8443", str(port))], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env=dict(os.environ, LOG_LEVEL="warning"))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    # huddle send's push, then curl's: the first is the newest's one more, pluralized by the .stringsdict.
    assert "registered key ABC123DEFG of team DEF123GHIJ for com.example.chat" in result.stdout, output
    assert re.search(r"^200 HTTP/1\.1 apns-id: [0-9a-f-]{36}$", result.stdout, re.M), output
    assert "1 more message from Teja\n" in result.stdout, output
    assert re.search(r"200\s+-\s+com\.example\.chat", result.stdout), output
