"""`huddle lint` as a CI job runs it: the real binary over the rule fixtures and the shipped examples, every
output format checked against its schema or grammar, and the exit statuses a pipeline branches on."""
import json
import pathlib
import re
import subprocess

import jsonschema
import pytest

from conftest import HUDDLE, ROOT

RULES = ROOT / "Tests" / "HuddleLintTests" / "Fixtures" / "Rules"
SCHEMAS = ROOT / "Tests" / "e2e" / "schemas"
RULE_IDS = sorted(path.name for path in RULES.iterdir() if path.is_dir())
# Rules whose bad fixture has an error; the others only warn or note.
ERROR_RULES = {
    "unreadable-file", "invalid-scenario", "invalid-payload", "payload-too-large", "summary-arg-count", "unknown-category",
    "unknown-loc-key", "loc-args-count", "plural-missing-category", "plural-missing-other", "undefined-plural-variable",
    "format-mismatch", "invalid-format", "live-activity-payload", "live-activity-content-state", "fcm-invalid-message",
    "web-push-declarative", "web-push-too-large", "web-push-request", "expo-invalid-message", "expo-too-large",
    # A warning rule whose bad fixture has its error case too: a background push without content-available.
    "push-type-payload",
}

CLANG_LINE = re.compile(r"^(?P<file>[^:]+)(:(?P<line>\d+)(:(?P<column>\d+))?)?: (?P<severity>error|warning|note): (?P<message>.+) \[(?P<rule>[a-z-]+)\]$")
# GitHub's workflow command syntax: ::command key=value,key=value::message, values and message escaped.
GITHUB_LINE = re.compile(r"^::(?P<command>error|warning|notice) (?P<properties>[^:]*)::(?P<message>[^\r\n]*)$")


def lint(*arguments, cwd=None):
    return subprocess.run([str(HUDDLE), "lint", *arguments], capture_output=True, text=True, cwd=cwd, timeout=120)


def validator(name):
    schema = json.loads((SCHEMAS / name).read_text() if name.startswith("sarif") else (ROOT / "docs" / name).read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


SARIF = validator("sarif-schema-2.1.0.json")
JSON_OUTPUT = validator("lint-output.schema.json")


def test_every_rule_has_a_fixture_and_lint_lists_every_rule():
    listed = lint("--list-rules")
    assert listed.returncode == 0
    ids = [line.split(" ", 1)[0] for line in listed.stdout.splitlines()]
    assert len(ids) == len(set(ids)) and set(ids) == set(RULE_IDS)
    assert all(re.fullmatch(r"[a-z-]+ \((error|warning|note)\): .+\.", line) for line in listed.stdout.splitlines())


@pytest.mark.parametrize("rule", RULE_IDS)
def test_bad_fixture_in_every_format(rule):
    bad = RULES / rule / "bad"
    clang = lint(".", cwd=bad)
    expected_status = 2 if rule == "unreadable-file" else (1 if rule in ERROR_RULES else 0)
    assert clang.returncode == expected_status, clang.stderr
    assert clang.stdout == (RULES / rule / "expected.txt").read_text()
    lines = clang.stdout.splitlines()
    assert lines and all(CLANG_LINE.match(line) for line in lines)
    assert any(CLANG_LINE.match(line)["rule"] == rule for line in lines)
    assert re.fullmatch(r"huddle lint: \d+ errors?, \d+ warnings? and \d+ notes? in \d+ files?\n", clang.stderr)

    as_json = lint(".", "--format", "json", cwd=bad)
    assert as_json.returncode == expected_status
    document = json.loads(as_json.stdout)
    JSON_OUTPUT.validate(document)
    assert [(f["rule"], f["file"], f["line"], f["column"]) for f in document["findings"]] == [
        (m["rule"], m["file"], int(m["line"]) if m["line"] else None, int(m["column"]) if m["column"] else None)
        for m in map(CLANG_LINE.match, lines)
    ]

    sarif = lint(".", "--format", "sarif", cwd=bad)
    assert sarif.returncode == expected_status
    log = json.loads(sarif.stdout)
    SARIF.validate(log)
    run = log["runs"][0]
    results = run["results"]
    assert [r["ruleId"] for r in results] == [f["rule"] for f in document["findings"]]
    for result in results:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")

    github = lint(".", "--format", "github", cwd=bad)
    assert github.returncode == expected_status
    annotations = github.stdout.splitlines()
    assert len(annotations) == len(lines)
    for annotation, finding in zip(annotations, document["findings"]):
        match = GITHUB_LINE.match(annotation)
        assert match, annotation
        properties = dict(pair.split("=", 1) for pair in match["properties"].split(","))
        assert properties["file"] == finding["file"].replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
        assert properties.get("line") == (str(finding["line"]) if finding["line"] else None)
        assert properties["title"] == f"huddle lint%3A {finding['rule']}"
        assert {"error": "error", "warning": "warning", "note": "notice"}[finding["severity"]] == match["command"]


@pytest.mark.parametrize("rule", RULE_IDS)
def test_good_fixture_is_clean_even_failing_on_notes(rule):
    good = lint(".", "--fail-on", "note", "--format", "sarif", cwd=RULES / rule / "good")
    assert good.returncode == 0, good.stdout
    log = json.loads(good.stdout)
    SARIF.validate(log)
    assert log["runs"][0]["results"] == []


def test_fail_on_and_disable_decide_the_exit_status():
    warnings_only = RULES / "thread-id-mix" / "bad"
    assert lint(".", cwd=warnings_only).returncode == 0
    assert lint(".", "--fail-on", "warning", cwd=warnings_only).returncode == 1
    assert lint(".", "--fail-on", "never", cwd=RULES / "invalid-payload" / "bad").returncode == 0
    silenced = lint(".", "--fail-on", "warning", "--disable", "thread-id-mix", cwd=warnings_only)
    assert silenced.returncode == 0 and silenced.stdout == ""
    unknown = lint(".", "--disable", "no-such-rule", cwd=warnings_only)
    assert unknown.returncode == 64 and "no such rule" in unknown.stderr
    missing = lint("does-not-exist.json")
    assert missing.returncode == 2
    assert missing.stdout == "does-not-exist.json: error: no such file or folder [unreadable-file]\n"


def test_the_shipped_examples(tmp_path):
    run = lint("Examples", cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    findings = [CLANG_LINE.match(line) for line in run.stdout.splitlines()]
    assert all(findings)
    # Calendar's invitations stack apart from its event alerts on purpose; the example says so.
    assert [m["rule"] for m in findings].count("thread-id-mix") == 1
    assert any(m["file"] == "Examples/wwdc.json" for m in findings)
    # The example catalogs keep one English-only string to show the fallback.
    assert {m["rule"] for m in findings} == {"thread-id-mix", "missing-translation"}
    # The six scenarios (one of an Android phone, one of a summary, one of a Focus), the walk-through's push, the Messages
    # example's 8 catalogs and the demo apps' 16 (4 apps in 4 languages). Android's string resources are not linted.
    assert "in 31 files" in run.stderr


def test_an_app_file_with_a_simulator_push(tmp_path):
    (tmp_path / "app.json").write_text(json.dumps({"apps": {"com.example.chat": {"categories": [{"identifier": "msg"}]}}}))
    push = json.dumps({"Simulator Target Bundle": "com.example.chat", "aps": {"alert": "hi", "category": "mgs", "thread_id": "t"}})
    (tmp_path / "push.apns").write_text(push)
    run = lint("--app-file", "app.json", "push.apns", cwd=tmp_path)
    assert run.returncode == 1
    # Columns point at the keys (1-based, in characters of this one-line ASCII file).
    category_column = push.index('"category"') + 1
    key_column = push.index('"thread_id"') + 1
    assert run.stdout.splitlines() == [
        f"push.apns:1:{category_column}: error: category `mgs` is not declared by com.example.chat (it declares `msg`): "
        "the push gets no summary format, placeholder or actions; send a declared category or declare this one (linted as an alert push) [unknown-category]",
        f"push.apns:1:{key_column}: warning: `thread_id` is not a key of aps, so APNs accepts the push and ignores it: "
        "did you mean `thread-id`? (linted as an alert push) [unknown-key]",
    ]


def test_a_folder_of_pushes_of_every_type_is_linted_file_by_file_without_a_flag(tmp_path):
    """Issue 44: an alert, a background push and Live Activity start, update and end payloads side by side, each
    linted by its own type's rules, read from its keys (which --help names), each finding saying which type;
    --push-type still overrides."""
    folder = ROOT / "Tests" / "HuddleLintTests" / "Fixtures" / "PushTypes"
    run = lint(str(folder), cwd=tmp_path)
    lines = run.stdout.splitlines()
    found = sorted((pathlib.Path(m["file"]).name, m["rule"]) for m in map(CLANG_LINE.match, lines))
    assert found == [("alert.json", "unknown-key"), ("background.json", "unknown-key"), ("end.json", "live-activity-key"),
                     ("start.json", "live-activity-key"), ("update.json", "live-activity-payload")], run.stdout
    said = {pathlib.Path(m["file"]).name: m["message"] for m in map(CLANG_LINE.match, lines)}
    assert said["update.json"].endswith('(linted as a liveactivity push: aps has "event" and "content-state")'), said
    assert "aps.timestamp: is missing" in said["update.json"]
    assert said["background.json"].endswith("(linted as a background push: aps has \"content-available\": 1 and no alert, badge or sound)")
    assert said["alert.json"].endswith("(linted as an alert push)")
    assert run.returncode == 1
    overridden = lint("--push-type", "alert", str(folder / "update.json"), cwd=tmp_path)
    assert overridden.returncode == 0 and overridden.stdout == "", overridden.stdout
    help_text = " ".join(lint("--help", cwd=tmp_path).stdout.split())
    assert "aps.event or aps.content-state: liveactivity" in help_text and "aps.content-changed: widgets" in help_text


def test_a_live_activity_payload_file_is_checked_against_the_declared_type(tmp_path):
    """`--push-type liveactivity` lints a payload file as the device would apply it, with the types an --app-file declares."""
    (tmp_path / "app.json").write_text(json.dumps({"apps": {"com.example.delivery": {"liveActivities": {"types": [
        {"name": "DeliveryAttributes", "contentState": {"eta": "date"}}]}}}}))
    (tmp_path / "update.json").write_text(json.dumps(
        {"aps": {"timestamp": 1528304460, "event": "update", "content-state": {"eta": 1528305000}, "dismissal-date": 1, "relevance-score": 100}}))
    (tmp_path / "late.json").write_text(json.dumps({"aps": {"timestamp": 1528304460, "event": "update", "content-state": {}}}))
    run = lint("--push-type", "liveactivity", "--app-file", "app.json", "--app", "com.example.delivery", "update.json", "late.json", cwd=tmp_path)
    findings = sorted((m["file"], m["rule"]) for m in map(CLANG_LINE.match, run.stdout.splitlines()))
    assert findings == [("late.json", "live-activity-content-state"), ("update.json", "live-activity-date"), ("update.json", "live-activity-key")]
    assert run.returncode == 1
    # relevance-score is a relative number on an activity (100 is fine there), unlike a notification's 0…1.
    assert "relevance-score" not in run.stdout


def test_huddle_lint_alone_is_huddle_lint_and_keeps_a_stamp_only_while_passing(tmp_path):
    # The executable the plugins and the action build: the same report and status as `huddle lint`.
    alone = HUDDLE.parent / "huddle-lint"
    bad = RULES / "plural-missing-category" / "bad"
    as_subcommand = lint(".", cwd=bad)
    by_itself = subprocess.run([str(alone), "."], capture_output=True, text=True, cwd=bad, timeout=120)
    assert (by_itself.returncode, by_itself.stdout) == (as_subcommand.returncode, as_subcommand.stdout) == (1, (RULES / "plural-missing-category" / "expected.txt").read_text())
    assert by_itself.stderr == as_subcommand.stderr.replace("huddle lint:", "huddle-lint:")

    # The build plugin's output: written after a run that passes, removed after one that fails, so a build
    # system runs the check again until it passes.
    stamp = tmp_path / "Greetings-huddle-lint-stamp.swift"
    passing = subprocess.run([str(alone), str(RULES / "plural-missing-category" / "good"), "--stamp-file", str(stamp)], capture_output=True, timeout=120)
    assert passing.returncode == 0 and stamp.read_bytes() == b""
    failing = subprocess.run([str(alone), str(bad), "--stamp-file", str(stamp)], capture_output=True, timeout=120)
    assert failing.returncode == 1 and not stamp.exists()
    unwritable = subprocess.run([str(alone), str(RULES / "plural-missing-category" / "good"), "--stamp-file", str(tmp_path / "no" / "stamp")], capture_output=True, text=True, timeout=120)
    assert unwritable.returncode == 2 and f"cannot write --stamp-file {tmp_path}/no/stamp" in unwritable.stderr
