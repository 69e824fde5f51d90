#!/usr/bin/env python3
"""Writes Sources/HuddleLocalization/Plurals/PluralRuleTable.swift from Babel's copy of the CLDR plural rules.

Usage:
    pip install babel==2.19.0
    python3 Tools/generate-plural-rules.py            # rewrites the committed table
    python3 Tools/generate-plural-rules.py -o -       # prints it instead
    python3 Tools/generate-plural-rules.py -o FILE    # writes it elsewhere (Tools/check-generated.sh)

What goes into the table:
- Babel keeps the rules of each locale parsed into a small syntax tree (it drops the @integer/@decimal
  samples); the tree is turned back into CLDR rule text here, in the syntax plurals.xml uses
  (`=`, `!=`, `%`), and checked to parse back into the same tree.
- Babel copies a language's rules into each of its script and 001 locales (az_Arab, zh_Hant, en_001); a
  locale whose rules equal those its truncated parent would give is left out, so the table lists the
  locales CLDR itself lists.
- Each distinct rule set is written once; locales refer to it by index.
- Babel's language aliases (iw -> he, tl -> fil, eng -> en) are kept where the target has rules, so
  deprecated and three-letter codes do not fall through to root.
- A locale whose CLDR parent (the parentLocales data) is not what dropping subtags gives takes its parent's
  rules: pt_AO's parent is pt_PT, not pt, so Angolan Portuguese counts as European Portuguese does. Such a
  locale is listed when its parent's rules differ from the ones truncation would reach.

The output depends only on the Babel version: everything is sorted, so CI can regenerate the file and
compare it with the committed one (Tools/check-generated.sh).
"""

from __future__ import annotations

import re
from pathlib import Path

import cldr_babel

TOOL = "generate-plural-rules"
CATEGORIES = ("zero", "one", "two", "few", "many")  # CLDR order; `other` has no condition
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO_ROOT / "Sources/HuddleLocalization/Plurals/PluralRuleTable.swift"


def fail(message: str) -> None:
    cldr_babel.fail(TOOL, message)


babel = cldr_babel.require_babel(TOOL)
from babel import localedata  # noqa: E402 (after the version check)
from babel.core import get_global  # noqa: E402
from babel.plural import _Parser  # noqa: E402 (the parser Babel itself uses; only for the round-trip check)


# --- rule text from Babel's syntax tree -------------------------------------------------------------


def render_expression(node) -> str:
    kind, args = node
    if kind == "mod":
        (operand, _), (_, (divisor,)) = args
        return f"{operand} % {divisor}"
    if kind in ("n", "i", "v", "w", "f", "t", "c", "e"):
        return kind
    raise ValueError(f"unexpected expression node {node!r}")


def render_range_list(node) -> str:
    kind, ranges = node
    if kind != "range_list":
        raise ValueError(f"unexpected range list node {node!r}")
    parts = []
    for (_, (low,)), (_, (high,)) in ranges:
        parts.append(str(low) if low == high else f"{low}..{high}")
    return ",".join(parts)


def render_relation(node, negated: bool) -> str:
    kind, args = node
    if kind == "relation":
        method, expression, range_list = args
        left = render_expression(expression)
        ranges = render_range_list(range_list)
        if method == "in":
            return f"{left} {'!=' if negated else '='} {ranges}"
        if method == "within":
            return f"{left} {'not within' if negated else 'within'} {ranges}"
        raise ValueError(f"unexpected relation method {method!r}")
    if kind in ("is", "isnot") and not negated:
        expression, (_, (value,)) = args
        return f"{render_expression(expression)} {'is not' if kind == 'isnot' else 'is'} {value}"
    raise ValueError(f"unexpected relation node {node!r}")


def render_condition(node) -> str:
    """CLDR text for a condition; `and` binds tighter than `or`, so no parentheses are ever needed."""
    kind, args = node
    if kind == "or":
        return f"{render_condition(args[0])} or {render_condition(args[1])}"
    if kind == "and":
        left, right = args
        if left[0] == "or" or right[0] == "or":
            raise ValueError("an `or` inside an `and` cannot be written without parentheses")
        return f"{render_condition(left)} and {render_condition(right)}"
    if kind == "not":
        return render_relation(args[0], negated=True)
    return render_relation(node, negated=False)


def rule_texts(plural_rule) -> tuple[tuple[str, str], ...]:
    """The (category, condition) pairs of one Babel PluralRule, in CLDR order."""
    texts = {}
    for category, ast in plural_rule.abstract:
        if category == "other":
            continue  # `other` is whatever the other conditions leave; CLDR gives it samples only
        if category not in CATEGORIES:
            fail(f"unknown plural category {category!r}")
        text = render_condition(ast)
        if _Parser(text).ast != ast:
            fail(f"rule text {text!r} does not parse back into Babel's rule {ast!r}")
        texts[category] = text
    return tuple((category, texts[category]) for category in CATEGORIES if category in texts)


# --- which locales ------------------------------------------------------------------------------------


def own_rules(key: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Locales whose Babel data carries its own `key` ("plural_form" or "ordinal_form")."""
    rules = {}
    for locale in sorted(localedata.locale_identifiers()):
        data = localedata.load(locale, merge_inherited=False)
        if key in data:
            rules[locale] = rule_texts(data[key])
    return rules


def truncated_parent(locale: str, table: dict) -> str | None:
    """The nearest shorter locale in `table`, dropping subtags from the right, as lookups at run time do."""
    candidate = locale
    while "_" in candidate:
        candidate = candidate.rsplit("_", 1)[0]
        if candidate in table:
            return candidate
    return None


def without_copies(rules: dict) -> dict:
    """Drops locales whose rules equal their truncated parent's: lookups reach the parent anyway."""
    kept = {}
    for locale, texts in rules.items():
        parent = truncated_parent(locale, rules)
        if parent is not None and rules[parent] == texts:
            continue
        kept[locale] = texts
    return kept


def resolve(locale: str, table: dict) -> str | None:
    return locale if locale in table else truncated_parent(locale, table)


def with_parent_locales(rules: dict, own: dict) -> dict:
    """Adds the locales whose parentLocales chain reaches other rules than truncation would in `rules`
    (locales with rules of their own, in `own`, keep them)."""
    parents = cldr_babel.parent_locales()

    def rules_through_parents(locale: str):
        seen = set()
        while locale not in seen:
            seen.add(locale)
            if locale in rules:
                return rules[locale]
            if locale in parents:
                locale = parents[locale]
            elif "_" in locale:
                locale = locale.rsplit("_", 1)[0]
            else:
                return None
        return None

    extended = dict(rules)
    for locale in sorted(parents):
        if locale in own:
            continue
        inherited = rules_through_parents(locale)
        truncated = resolve(locale, rules)
        # Without a truncated parent a lookup ends at root, where everything is `other`.
        reached = rules[truncated] if truncated is not None else ()
        if inherited is not None and inherited != reached:
            extended[locale] = inherited
    return extended


def language_aliases(cardinal: dict, ordinal: dict) -> dict[str, str]:
    aliases = {}
    for alias, target in sorted(get_global("language_aliases").items()):
        if not re.fullmatch(r"[a-z]{2,3}", alias) or alias in cardinal or alias in ordinal:
            continue
        if resolve(target, cardinal) is not None:
            aliases[alias] = target
    return aliases


# --- Swift output -------------------------------------------------------------------------------------


def swift_string(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_ .,%=!]*", text):
        fail(f"unexpected characters in {text!r}")
    return f'"{text}"'


def render_table(cldr_version: str) -> str:
    own_cardinal = own_rules("plural_form")
    own_ordinal = own_rules("ordinal_form")
    cardinal = with_parent_locales(without_copies(own_cardinal), own_cardinal)
    ordinal = with_parent_locales(without_copies(own_ordinal), own_ordinal)
    cardinal["root"] = ()
    ordinal["root"] = ()
    aliases = language_aliases(cardinal, ordinal)

    rule_sets = sorted(set(cardinal.values()) | set(ordinal.values()), key=lambda s: (len(s), s))
    index = {rule_set: position for position, rule_set in enumerate(rule_sets)}

    source = f"Babel {babel.__version__}"
    lines = [
        f"// Generated by Tools/generate-plural-rules.py from CLDR {cldr_version} ({source}). Do not edit.",
        "",
        "/// The CLDR plural rules as rule text (UTS #35 syntax, without the samples), each distinct rule set",
        "/// once, and the locales that use each set.",
        "///",
        "/// `PluralRules` parses the sets on first use. Locales not listed take their rules by dropping",
        "/// subtags from the right, then from `root`, where every number is `other`.",
        "enum PluralRuleTable {",
        "    /// The CLDR release the rules come from.",
        f"    static let cldrVersion = {swift_string(cldr_version)}",
        "",
        "    /// The package the generator read the rules from.",
        f"    static let source = {swift_string(source)}",
        "",
        "    /// Every distinct rule set: one condition per category, `other` being the rest.",
        "    static let ruleSets: [PluralRuleTexts] = [",
    ]
    for position, rule_set in enumerate(rule_sets):
        arguments = ", ".join(f"{category}: {swift_string(text)}" for category, text in rule_set)
        lines.append(f"        PluralRuleTexts({arguments}), // {position}")
    lines.append("    ]")

    for name, table, what in (
        ("cardinal", cardinal, "cardinal (counting) rules"),
        ("ordinal", ordinal, "ordinal (ranking) rules"),
    ):
        lines += [
            "",
            f"    /// Locales with their own {what}: CLDR identifier to index in `ruleSets`.",
            f"    static let {name}: [String: Int] = [",
        ]
        lines += [f"        {swift_string(locale)}: {index[table[locale]]}," for locale in sorted(table)]
        lines.append("    ]")

    lines += [
        "",
        "    /// Deprecated and ISO 639-2 language codes, with the CLDR identifier whose rules they take.",
        "    static let languageAliases: [String: String] = [",
    ]
    lines += [f"        {swift_string(alias)}: {swift_string(target)}," for alias, target in aliases.items()]
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def main() -> None:
    cldr_version = get_global("cldr")["version"]
    cldr_babel.write_table(__doc__.split("\n\n")[0], DEFAULT_OUTPUT, lambda: render_table(str(cldr_version)))


if __name__ == "__main__":
    main()
