"""The GitHub Actions composite action (action.yml) without GitHub: its steps' scripts run here as a runner runs
them (`bash --noprofile --norc -eo pipefail`, outputs through $GITHUB_OUTPUT), with the few expressions the
action uses (inputs, steps' outputs, github.action_path, runner.temp) filled in by this file. What this does not
show: GitHub's own parsing of the file, a real download over HTTPS (a file:// URL stands in), and a real Swift
build of huddle-lint in the action (a stand-in `swift` records the command and hands over the suite's build)."""
import json
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ElementTree

import yaml

from conftest import HUDDLE, ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
HUDDLE_LINT = HUDDLE.parent / "huddle-lint"
RULES = ROOT / "Tests" / "HuddleLintTests" / "Fixtures" / "Rules"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
ANNOTATION = re.compile(r"^::(error|warning|notice) file=(?P<file>[^,]+),line=\d+,.*::.+$")


def run_action(workspace, path=os.environ["PATH"], **inputs):
    """Runs the action's steps in order in `workspace`; returns the last step's result and every step's outputs."""
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    given = {name.replace("_", "-"): value for name, value in inputs.items()}
    assert set(given) <= set(defaults), f"action.yml has no input {set(given) - set(defaults)}"
    values = {**defaults, **given}
    temp = workspace.parent / f"{workspace.name}-runner-temp"
    temp.mkdir()
    outputs = {}

    def evaluate(match):
        expression = match.group(1)
        if expression.startswith("inputs."):
            return values[expression.removeprefix("inputs.")]
        if expression == "github.action_path":
            return str(ROOT)
        if expression == "runner.temp":
            return str(temp)
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        assert step, f"this test does not fill in ${{{{ {expression} }}}}"
        return outputs[step[1]].get(step[2], "")

    assert ACTION["runs"]["using"] == "composite"
    for step in ACTION["runs"]["steps"]:
        # The scripts take inputs from the environment only: an expression pasted into a script is an injection.
        assert step["shell"] == "bash" and "${{" not in step["run"] and "if" not in step
        environment = {name: EXPRESSION.sub(evaluate, str(value)) for name, value in step.get("env", {}).items()}
        script = temp / f"{step['id']}.sh"
        script.write_text(step["run"])
        output_file = temp / f"{step['id']}.output"
        output_file.touch()
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                                env={"PATH": path, "HOME": os.environ["HOME"], **environment, "GITHUB_OUTPUT": str(output_file)},
                                capture_output=True, text=True, timeout=300)
        outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines())
        if result.returncode != 0:
            break
    return result, outputs


def workspace_with(tmp_path, rule):
    """A repository's checkout holding one rule's bad fixture as its Pushes folder."""
    workspace = tmp_path / "checkout"
    shutil.copytree(RULES / rule / "bad", workspace / "Pushes")
    return workspace


def test_annotations_and_a_sarif_report_from_a_huddle_binary(tmp_path):
    workspace = workspace_with(tmp_path, "thread-id-mix")
    result, outputs = run_action(workspace, binary=str(HUDDLE), paths="Pushes", format="sarif", fail_on="warning")
    # Warnings only, failing on warnings.
    assert result.returncode == 1, result.stderr
    assert outputs["tool"] == {"executable": str(HUDDLE), "subcommand": "lint"}
    annotations = result.stdout.splitlines()
    assert annotations and all(ANNOTATION.match(line)["file"].startswith("Pushes/") for line in annotations), result.stdout
    assert outputs["lint"]["report-file"] == "huddle-lint.sarif"
    sarif = json.loads((workspace / "huddle-lint.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"thread-id-mix"}
    assert len(sarif["runs"][0]["results"]) == len(annotations)


def release_archive(tmp_path):
    """An archive laid out as scripts/release lays it out. Its `huddle` hands over to the suite's build, so the
    test does not pack a 150 MB debug binary; the download, the check and the unpacking are the action's own."""
    folder = tmp_path / "dist" / "huddle-0.1.0-linux-x86_64"
    folder.mkdir(parents=True)
    (folder / "huddle").write_text(f'#!/bin/sh\nexec "{HUDDLE}" "$@"\n')
    (folder / "huddle").chmod(0o755)
    (folder / "README.md").write_text("Huddle\n")
    archive = tmp_path / "dist" / "huddle-0.1.0-linux-x86_64.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return archive


def test_a_release_archive_is_downloaded_checked_and_run_with_a_junit_report(tmp_path):
    archive = release_archive(tmp_path)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    workspace = workspace_with(tmp_path, "plural-unused-category")
    result, outputs = run_action(workspace, archive_url=archive.as_uri(), archive_sha256=digest, paths="Pushes", format="junit")
    # A warning, failing on errors (the default): annotated, and the step passes.
    assert result.returncode == 0, result.stderr
    assert outputs["tool"]["executable"].endswith("/huddle-lint-action/huddle-0.1.0-linux-x86_64/huddle")
    assert [ANNOTATION.match(line)[1] for line in result.stdout.splitlines()] == ["warning"]
    suite = ElementTree.parse(workspace / "huddle-lint.xml").getroot()
    assert suite.iter("testcase")

    forged = workspace_with(tmp_path / "forged", "plural-unused-category")
    result, outputs = run_action(forged, archive_url=archive.as_uri(), archive_sha256="0" * 64, paths="Pushes")
    assert result.returncode != 0 and "FAILED" in result.stdout + result.stderr
    assert "lint" not in outputs


def test_without_archive_or_binary_it_builds_huddle_lint_with_swift(tmp_path):
    # A stand-in for swift: it records how it was called and points at the suite's huddle-lint.
    tools = tmp_path / "bin"
    tools.mkdir()
    calls = tmp_path / "swift-calls"
    bin_path = tmp_path / "built"
    bin_path.mkdir()
    (bin_path / "huddle-lint").symlink_to(HUDDLE_LINT)
    (tools / "swift").write_text(
        f'#!/bin/sh\necho "$*" >>"{calls}"\ncase "$*" in *--show-bin-path*) echo "{bin_path}";; esac\n')
    (tools / "swift").chmod(0o755)
    workspace = workspace_with(tmp_path, "plural-missing-other")
    result, outputs = run_action(workspace, path=f"{tools}:/usr/bin:/bin", paths="Pushes")
    temp = f"{workspace}-runner-temp"
    assert calls.read_text().splitlines()[0] == (
        f"build -c release --product huddle-lint --package-path {ROOT} --scratch-path {temp}/huddle-lint-action/build")
    assert outputs["tool"] == {"executable": f"{bin_path}/huddle-lint", "subcommand": ""}
    # An error fails the step by default, with its annotation.
    assert result.returncode == 1
    assert [ANNOTATION.match(line)[1] for line in result.stdout.splitlines()] == ["error"]


def test_without_any_way_to_get_huddle_it_says_what_to_give(tmp_path):
    workspace = workspace_with(tmp_path, "plural-missing-other")
    assert not any((pathlib.Path(folder) / "swift").exists() for folder in ["/usr/bin", "/bin"])
    result, outputs = run_action(workspace, path="/usr/bin:/bin")
    assert result.returncode == 1
    assert result.stdout == "::error::huddle lint needs archive-url, binary, or a runner with Swift to build huddle-lint\n"
    assert "lint" not in outputs


def test_the_readmes_step_works_as_typed(tmp_path):
    section = (ROOT / "README.md").read_text().split("### Use it in CI\n", 1)[1].split("\n## ", 1)[0]
    steps = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S)[1])
    assert steps[0]["uses"] == "./huddle"
    # A checkout with the folders and app file the step names; the binary is given since this runner has no
    # archive to download (the README's step would build huddle-lint with Swift).
    workspace = tmp_path / "checkout"
    shutil.copytree(RULES / "plural-unused-category" / "bad", workspace / "MyApp" / "Resources")
    shutil.copytree(RULES / "unknown-category" / "good", workspace / "Pushes")
    shutil.move(workspace / "Pushes" / "app.json", workspace / "push-app.json")
    inputs = {name.replace("-", "_"): value for name, value in steps[0]["with"].items()}
    result, outputs = run_action(workspace, binary=str(HUDDLE), **inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [ANNOTATION.match(line)["file"] for line in result.stdout.splitlines()] == ["MyApp/Resources/en.lproj/Localizable.stringsdict"]
    # The upload step finds the report where the README says.
    assert outputs["lint"]["report-file"] == steps[1]["with"]["sarif_file"]
    assert json.loads((workspace / steps[1]["with"]["sarif_file"]).read_text())["runs"][0]["results"]
