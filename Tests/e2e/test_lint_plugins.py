"""The SwiftPM plugins as an app's package uses them: Tests/LintPluginSample depends on this repository by path,
applies HuddleLintBuildPlugin to two targets, and is built here with SwiftPM as a developer builds it.

It builds in its own scratch folder, .build-lint-sample (ignored by git), never in .build, so it cannot run
into the suite's own build; the folder is kept between runs, so a second run is quick. On a new clone the
first build is cold: both plugins need huddle-lint, which SwiftPM builds twice (once as the build plugin's
tool, once for the command plugin), swift-crypto's C sources most of it (README, "Lint in Xcode and
SwiftPM", gives the figures)."""
import json
import os
import re
import subprocess

from conftest import ROOT

SAMPLE = ROOT / "Tests" / "LintPluginSample"
SCRATCH = ROOT / ".build-lint-sample"
GREETINGS = SAMPLE / "Sources" / "Greetings" / "Resources" / "en.lproj" / "Localizable.stringsdict"
BROKEN = SAMPLE / "Sources" / "BrokenPlurals" / "Resources" / "ru.lproj" / "Localizable.stringsdict"
# The planted defects, where the build and the command plugin must point: line 9 column 9 is `<key>count</key>`.
WARNING = re.compile(r"^(?P<file>\S+):9:9: warning: plural variable `count` of `UNREAD_MESSAGES` has a few form that en never uses .* \[plural-unused-category\]$", re.M)
ERROR = re.compile(r"^(?P<file>\S+):9:9: error: plural variable `count` of `UNREAD_MESSAGES` has no few \(2, 3, 4\) or many .* \[plural-missing-category\]$", re.M)
FINDING = re.compile(r"^\S+:\d+:\d+: (?:error|warning|note): .*$", re.M)
# Cold, both builds of huddle-lint took about 3 minutes each on this project's 2-core machines.
COLD_BUILD_SECONDS = 1200


def readme_section():
    readme = (ROOT / "README.md").read_text()
    return readme.split("### Lint in Xcode and SwiftPM\n", 1)[1].split("\n### ", 1)[0]


def test_the_readme_shows_the_plugin_as_the_sample_applies_it():
    manifest = (SAMPLE / "Package.swift").read_text()
    snippet = re.search(r"```swift\n(.*?)```", readme_section(), re.S)[1]
    plugins = re.search(r"plugins: \[.*?\]", snippet)[0]
    assert manifest.count(plugins) == 2
    # The README's dependency differs only in its path: a clone beside the app instead of this repository.
    assert '.package(name: "huddle", path: "../huddle")' in snippet and '.package(name: "huddle", path: "../..")' in manifest


def swift(*arguments):
    """`swift build …` or `swift package … VERB …` on the sample, in its scratch folder."""
    command, rest = arguments[0], list(arguments[1:])
    location = ["--package-path", str(SAMPLE), "--scratch-path", str(SCRATCH)]
    return subprocess.run(["swift", command, *location, *rest], capture_output=True, text=True, timeout=COLD_BUILD_SECONDS,
                          env=dict(os.environ, NO_COLOR="1"))


def test_the_command_plugin_lints_every_target_and_passes_options_through():
    # One run, since SwiftPM rebuilds the plugin's tool at each (see HuddleLintCommandPlugin): the README's
    # invocation for where the package and its build are, every target by default, --format passed through.
    typed = re.search(r"```sh\n(.*?)\n```", readme_section(), re.S)[1]
    assert typed == "swift package huddle-lint --format sarif > huddle.sarif"
    run = swift("package", "huddle-lint", "--format", "sarif")
    assert run.returncode == 1, run.stdout + run.stderr
    # Only the report is on standard output, so it parses whole; files are named from the package's folder.
    results = json.loads(run.stdout)["runs"][0]["results"]
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [
        ("plural-missing-category", "error", "Sources/BrokenPlurals/Resources/ru.lproj/Localizable.stringsdict", 9),
        ("plural-unused-category", "warning", "Sources/Greetings/Resources/en.lproj/Localizable.stringsdict", 9),
    ]
    # The summary is SwiftPM's error diagnostic, on standard error: what fails `swift package`.
    assert "error: huddle-lint: 1 error, 1 warning and 0 notes in 4 files" in run.stderr


def test_the_build_plugin_shows_a_warning_where_the_compiler_would_and_builds():
    # A build kept from an earlier run lints again only for a changed catalog. (Removing the plugin's output
    # instead would make SwiftPM plan the build again, and rebuild huddle-lint whole with it.)
    GREETINGS.touch()
    built = swift("build", "--target", "Greetings")
    output = built.stdout + built.stderr
    assert built.returncode == 0, output
    # An absolute path, line and column: what SwiftPM prints and Xcode puts beside the line.
    assert WARNING.search(output)["file"] == str(GREETINGS), output
    # That is the only finding: the other JSON resource (feature-flags.json) is not a payload, and lint leaves it.
    assert FINDING.findall(output) == [WARNING.search(output)[0]], output
    # The command's output is an empty Swift file; nothing of lint's lands in the app's bundle.
    bundle = SCRATCH / "debug" / "LintPluginSample_Greetings.resources"
    assert sorted(path.name for path in bundle.iterdir()) == ["Info.plist", "en.lproj", "feature-flags.json", "new-message.json"]

    # Nothing changed: no second run. A catalog touched: it lints again.
    again = swift("build", "--target", "Greetings")
    assert again.returncode == 0 and "huddle-lint" not in again.stdout + again.stderr
    GREETINGS.touch()
    touched = swift("build", "--target", "Greetings")
    assert touched.returncode == 0 and WARNING.search(touched.stdout + touched.stderr), touched.stdout + touched.stderr


def test_the_build_plugin_fails_the_build_on_an_error():
    # A failed check leaves no stamp, so every build runs it again until the catalog is mended.
    built = swift("build", "--target", "BrokenPlurals")
    output = built.stdout + built.stderr
    assert built.returncode != 0, output
    assert ERROR.search(output)["file"] == str(BROKEN), output
    # The target's code was not compiled past the failed check.
    assert not list(SCRATCH.glob("debug/BrokenPlurals.build/*.o"))
