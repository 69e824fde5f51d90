#!/usr/bin/env python3
"""Writes Tests/HuddleLocalizationTests/Plurals/CLDRPluralSamples.swift: CLDR's @integer/@decimal samples
for the plural rule sets that are the same in the CLDR release Babel ships as in the XML given.

Babel (the source of PluralRuleTable.swift) drops the samples, so they come from the CLDR XML, which
Debian packages (CLDR 41 on Debian 12):

    apt-get install -y unicode-cldr-core
    pip install babel==2.19.0
    python3 Tools/extract-plural-samples.py

A sample is only valid for the rules it was written for, so a CLDR group's samples are kept, under the
first of its locales whose Babel rules mean the same as the group's rules in the XML, and groups where no
locale's rules do (he, ro, mt, ... changed since) are left out and reported. Two rules mean the same when
they parse into the same tree once each `=`/`!=` range list is written out as its set of integers
(`i = 0,1` and `i = 0..1`, which CLDR 49 writes for fr, are one rule). The output is sorted and depends
only on the two inputs.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from babel import Locale, localedata
from babel.plural import _Parser

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CLDR = Path("/usr/share/unicode/cldr/common")
DEFAULT_OUTPUT = REPO_ROOT / "Tests/HuddleLocalizationTests/Plurals/CLDRPluralSamples.swift"
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


def cldr_version(common: Path) -> str:
    """The release, from the fixed `cldrVersion` attribute the DTD declares (the XML files leave it out)."""
    match = re.search(r'cldrVersion CDATA #FIXED "([^"]+)"', (common / "dtd/ldmlSupplemental.dtd").read_text())
    return match.group(1) if match else "?"


def groups(path: Path):
    """(locales, {category: (condition text, integer samples, decimal samples)}) per pluralRules."""
    for element in ET.parse(path).getroot().iter("pluralRules"):
        rules = {}
        for rule in element.findall("pluralRule"):
            text = " ".join((rule.text or "").split())
            condition, _, samples = text.partition("@")
            integers = decimals = ""
            for part in ("@" + samples).split("@")[1:]:
                kind, _, values = part.partition(" ")
                if kind == "integer":
                    integers = values.strip()
                elif kind == "decimal":
                    decimals = values.strip()
            rules[rule.get("count")] = (condition.strip(), integers, decimals)
        yield element.get("locales").split(), rules


# Range lists longer than this stay as written (none in CLDR comes near it).
LARGEST_EXPANDED_RANGE = 100_000


def canonical(node):
    """The tree with each `in` relation's range list as its sorted set of integers. `x = 0..1` is true only
    for integer x, so it is `x = 0,1`; `within` ranges also take decimals, so they stay as written."""
    kind, args = node
    if kind in ("and", "or", "not"):
        return (kind, tuple(canonical(arg) for arg in args))
    if kind == "relation" and args[0] == "in":
        method, expression, (_, ranges) = args
        bounds = [(low, high) for (_, (low,)), (_, (high,)) in ranges]
        if all(isinstance(low, int) and isinstance(high, int) for low, high in bounds) and sum(
            high - low + 1 for low, high in bounds
        ) <= LARGEST_EXPANDED_RANGE:
            values = sorted({value for low, high in bounds for value in range(low, high + 1)})
            return (kind, (method, expression, ("values", tuple(values))))
    return node


def canonical_rules(trees: dict) -> dict:
    return {category: canonical(tree) for category, tree in trees.items()}


def babel_tree(locale: str, ordinal: bool):
    rule = Locale.parse(locale).ordinal_form if ordinal else Locale.parse(locale).plural_form
    return dict(rule.abstract)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cldr", default=str(DEFAULT_CLDR), help="CLDR's common/ folder")
    parser.add_argument("-o", "--output", default=str(DEFAULT_OUTPUT), help="'-' for standard output")
    arguments = parser.parse_args()
    common = Path(arguments.cldr)
    known = set(localedata.locale_identifiers())

    entries = []
    for kind, file_name in (("cardinal", "plurals.xml"), ("ordinal", "ordinals.xml")):
        for locales, rules in groups(common / "supplemental" / file_name):
            candidates = [locale for locale in locales if locale in known and locale != "root"]
            if not candidates:
                continue
            xml_tree = canonical_rules({
                category: _Parser(condition).ast
                for category, (condition, _, _) in rules.items()
                if condition and category != "other"
            })
            representative = next(
                (
                    locale
                    for locale in candidates
                    if canonical_rules(babel_tree(locale, ordinal=kind == "ordinal")) == xml_tree
                ),
                None,
            )
            if representative is None:
                print(f"skipped {kind} {' '.join(locales)}: rules changed since this CLDR", file=sys.stderr)
                continue
            for category in CATEGORIES:
                if category in rules:
                    _, integers, decimals = rules[category]
                    entries.append((kind, representative, category, integers, decimals))

    lines = [
        f"// Generated by Tools/extract-plural-samples.py from CLDR {cldr_version(common)} "
        "(unicode-cldr-core), for the rule sets unchanged in Babel's CLDR. Do not edit.",
        "",
        "import HuddleLocalization",
        "",
        "/// CLDR's samples for each rule set: every listed number must take the listed category.",
        "enum CLDRPluralSamples {",
        "    static let all: [CLDRPluralSample] = [",
    ]
    for kind, locale, category, integers, decimals in sorted(entries):
        lines.append(
            f'        CLDRPluralSample(kind: .{kind}, locale: "{locale}", category: .{category}, '
            f'integers: "{integers}", decimals: "{decimals}"),'
        )
    lines += ["    ]", "}", ""]
    output = "\n".join(lines)
    if arguments.output == "-":
        sys.stdout.write(output)
    else:
        Path(arguments.output).write_text(output, encoding="utf-8")


if __name__ == "__main__":
    main()
