#!/usr/bin/env python3
"""Checks Sources/HuddleCore/Summary/HuddleStrings+Translations.swift against Babel's CLDR plural rules.

Usage:
    pip install babel==2.18.0
    python3 Tools/check-huddle-strings.py [FILE]

For every language in `translations` it checks:
- each plural dictionary (summary, summaryWithArguments, placeholder) has exactly the categories the
  language's CLDR cardinal rules use, plus `other`;
- every plural form contains the number conversion exactly once (`%u`, or `%1$u`);
- every summaryWithArguments form contains the list conversion exactly once (`%@`, or `%2$@`), and a form
  does not mix positional and plain conversions;
- placeholderSingle has no conversion, and no string has any other conversion (`%%` is allowed);
- no bidi control characters, entries sorted by tag, no duplicate tags, at least 36 languages.

A development aid; the Swift test suite is the real enforcement. Prints problems and exits 1 on any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from babel import Locale

EXPECTED_BABEL_VERSION = "2.18.0"
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = REPO_ROOT / "Sources/HuddleCore/Summary/HuddleStrings+Translations.swift"
MIN_LANGUAGES = 36
REQUIRED = (
    "en de fr es it pt pt-PT nl sv da nb fi is pl cs sk sl hr sr ro hu bg uk ru lt lv et el tr he ar fa hi "
    "bn th vi id ms ja ko zh-Hans zh-Hant ca"
).split()
PLURAL_FIELDS = ("summary", "summaryWithArguments", "placeholder")
ALL_FIELDS = ("summary", "summaryWithArguments", "placeholderSingle", "placeholder")
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
BIDI_CONTROLS = set("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

STRING = r'"(?:[^"\\\n]|\\.)*"'
ENTRY_START = re.compile(r'^\s*("(?:[^"\\\n]|\\.)*")\s*:\s*Strings\(', re.M)
FIELD = re.compile(r"\b(summaryWithArguments|summary|placeholderSingle|placeholder)\s*:\s*")
ARRAY = re.compile(r"\[((?:%s|[^\]\"])*)\]" % STRING, re.S)
FORM = re.compile(r"\.(\w+)\s*:\s*(%s)" % STRING)
CONVERSION = re.compile(r"%(?:(\d+)\$)?([-+ #0']*\d*(?:\.\d+)?(?:hh|h|ll|l|q|z|t|j|L)?[A-Za-z@%])")


def unescape(literal: str) -> str:
    """A Swift string literal (with its quotes) to its value."""
    body = literal[1:-1]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n == "u":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3:end], 16)))
            i = end + 1
            continue
        out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "'": "'", "\\": "\\"}[n])
        i += 2
    return "".join(out)


def babel_locale(tag: str) -> str:
    return tag.replace("-", "_")


def expected_categories(tag: str) -> set[str]:
    return set(Locale.parse(babel_locale(tag)).plural_form.tags) | {"other"}


def conversions(text: str) -> list[tuple[str | None, str]]:
    """(position, conversion) for each conversion, `%%` left out."""
    return [(m.group(1), m.group(2)) for m in CONVERSION.finditer(text) if m.group(2) != "%"]


def check_form(where: str, text: str, needs_list: bool, problems: list[str]) -> None:
    if any(c in BIDI_CONTROLS for c in text):
        problems.append(f"{where}: contains a bidi control character")
    stray = re.sub(CONVERSION, "", text)
    if "%" in stray:
        problems.append(f"{where}: stray '%' in {text!r}")
    convs = conversions(text)
    numbers = [c for c in convs if c[1] == "u"]
    lists = [c for c in convs if c[1] == "@"]
    others = [c for c in convs if c[1] not in ("u", "@")]
    if len(numbers) != 1:
        problems.append(f"{where}: needs %u exactly once, has {len(numbers)}: {text!r}")
    if needs_list and len(lists) != 1:
        problems.append(f"{where}: needs %@ exactly once, has {len(lists)}: {text!r}")
    if not needs_list and lists:
        problems.append(f"{where}: must not contain %@: {text!r}")
    if others:
        problems.append(f"{where}: unexpected conversions {others}: {text!r}")
    for position, kind in numbers + lists:
        allowed = {"u": "1", "@": "2"}[kind]
        if position is not None and position != allowed:
            problems.append(f"{where}: %{position}${kind} is not allowed (only %{allowed}${kind}): {text!r}")
    positional = {p is not None for p, _ in numbers + lists}
    if len(positional) > 1:
        problems.append(f"{where}: mixes positional and plain conversions: {text!r}")
    if positional == {True} and not needs_list:
        pass  # %1$u alone is fine


def parse(source: str, problems: list[str]) -> list[tuple[str, dict]]:
    starts = list(ENTRY_START.finditer(source))
    entries = []
    for index, start in enumerate(starts):
        tag = unescape(start.group(1))
        end = starts[index + 1].start() if index + 1 < len(starts) else len(source)
        block = source[start.end():end]
        fields: dict[str, object] = {}
        pos = 0
        while True:
            m = FIELD.search(block, pos)
            if not m:
                break
            name = m.group(1)
            if name in fields:
                problems.append(f"{tag}: {name} given twice")
            if name == "placeholderSingle":
                s = re.match(STRING, block[m.end():])
                if not s:
                    problems.append(f"{tag}: placeholderSingle is not a string literal")
                    pos = m.end()
                    continue
                fields[name] = unescape(s.group(0))
                pos = m.end() + s.end()
            else:
                a = ARRAY.match(block, m.end())
                if not a:
                    problems.append(f"{tag}: {name} is not a dictionary literal")
                    pos = m.end()
                    continue
                forms: dict[str, str] = {}
                for f in FORM.finditer(a.group(1)):
                    if f.group(1) in forms:
                        problems.append(f"{tag}.{name}: .{f.group(1)} given twice")
                    forms[f.group(1)] = unescape(f.group(2))
                leftover = FORM.sub("", a.group(1)).replace(",", "").strip()
                if leftover:
                    problems.append(f"{tag}.{name}: could not parse {leftover!r}")
                fields[name] = forms
                pos = a.end()
        entries.append((tag, fields))
    return entries


def main() -> int:
    import babel

    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_FILE
    problems: list[str] = []
    if babel.__version__ != EXPECTED_BABEL_VERSION:
        problems.append(f"Babel {babel.__version__} installed, expected {EXPECTED_BABEL_VERSION} (CLDR 47)")
    source = path.read_text(encoding="utf-8")
    if source.count("Strings(") != len(ENTRY_START.findall(source)):
        problems.append("some `Strings(` entries were not recognised as `\"tag\": Strings(`")
    entries = parse(source, problems)
    tags = [tag for tag, _ in entries]

    if len(tags) != len(set(tags)):
        problems.append(f"duplicate language tags: {sorted({t for t in tags if tags.count(t) > 1})}")
    if tags != sorted(tags):
        problems.append("entries are not sorted by language tag")
    if len(set(tags)) < MIN_LANGUAGES:
        problems.append(f"only {len(set(tags))} languages, need at least {MIN_LANGUAGES}")
    missing = [t for t in REQUIRED if t not in tags]
    if missing:
        problems.append(f"missing languages: {missing}")

    for tag, fields in entries:
        try:
            expected = expected_categories(tag)
        except Exception as error:  # unknown to Babel
            problems.append(f"{tag}: Babel does not know {babel_locale(tag)!r}: {error}")
            continue
        for name in ALL_FIELDS:
            if name not in fields:
                problems.append(f"{tag}: {name} is missing")
        for name in PLURAL_FIELDS:
            forms = fields.get(name)
            if not isinstance(forms, dict):
                continue
            unknown = set(forms) - set(CATEGORIES)
            if unknown:
                problems.append(f"{tag}.{name}: not plural categories: {sorted(unknown)}")
            got = set(forms) & set(CATEGORIES)
            if got != expected:
                problems.append(
                    f"{tag}.{name}: categories {sorted(got, key=CATEGORIES.index)}, CLDR wants "
                    f"{sorted(expected, key=CATEGORIES.index)}"
                )
            for category, text in forms.items():
                check_form(f"{tag}.{name}.{category}", text, name == "summaryWithArguments", problems)
        single = fields.get("placeholderSingle")
        if isinstance(single, str):
            if conversions(single) or "%" in single.replace("%%", ""):
                problems.append(f"{tag}.placeholderSingle: must have no conversions: {single!r}")
            if any(c in BIDI_CONTROLS for c in single):
                problems.append(f"{tag}.placeholderSingle: contains a bidi control character")
            if not single.strip():
                problems.append(f"{tag}.placeholderSingle: empty")

    for problem in problems:
        print(f"check-huddle-strings: {problem}")
    if problems:
        print(f"check-huddle-strings: {len(problems)} problem(s) in {path}")
        return 1
    print(f"check-huddle-strings: OK, {len(tags)} languages: {' '.join(tags)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
