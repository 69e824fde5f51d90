#!/usr/bin/env python3
"""Writes a localized app project for timing `huddle lint`: LANGUAGES languages x KEYS keys, as Xcode lays it out.

Usage:
    python3 Tools/bench/lint-project.py OUT [--languages 40] [--keys 500] [--payloads 200]

OUT gets:
- app.json: the app (development language en) with two categories whose summary format and placeholder
  are localized keys;
- Resources/<language>.lproj/Localizable.strings: four fifths of the keys, a third of them with %@ or
  %1$@ ... %2$d conversions;
- Resources/<language>.lproj/Localizable.stringsdict: the other fifth, plural entries with exactly the
  categories CLDR gives the language (Babel), the even ones with names (%@), the odd ones a count only, so
  the project is clean but for the few problems planted below;
- Payloads/push-N.json: pushes using the keys with their loc-args, a thread-id, a declared category.

Planted, so that the run reports something: each translation lacks its last key, and one payload sends a
category the app does not declare.
"""
import argparse
import json
import pathlib

from babel import Locale

LANGUAGES = [
    "en", "ar", "bg", "ca", "cs", "da", "de", "el", "es", "fa", "fi", "fr", "he", "hi", "hr", "hu", "id", "it",
    "ja", "ko", "lt", "lv", "ms", "nb", "nl", "pl", "pt-BR", "pt-PT", "ro", "ru", "sk", "sl", "sr", "sv", "th",
    "tr", "uk", "vi", "zh-Hans", "zh-Hant", "ga", "cy", "is", "et", "ka", "kk", "hy", "az", "be", "bn",
]


def plural_categories(language):
    tags = Locale.parse(language.replace("-", "_")).plural_form.tags
    return [c for c in ("zero", "one", "two", "few", "many") if c in tags] + ["other"]


def escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def write_project(out, languages, keys, payloads):
    out = pathlib.Path(out)
    plural_keys = [f"PLURAL_{i}" for i in range(keys // 5)]
    string_keys = [f"STRING_{i}" for i in range(keys - len(plural_keys))]
    for language in languages:
        folder = out / "Resources" / f"{language}.lproj"
        folder.mkdir(parents=True, exist_ok=True)
        # Translations lack their last string key: one missing-translation finding each.
        kept = string_keys if language == "en" else string_keys[:-1]
        lines = []
        for index, key in enumerate(kept):
            if index % 3 == 0:
                value = f"{language} {index}: %@ wrote"
            elif index % 3 == 1:
                value = f"{language} {index}: %1$@ sent %2$d photos"
            else:
                value = f"{language} text number {index}"
            lines.append(f'/* {key} */\n"{key}" = "{escape(value)}";')
        (folder / "Localizable.strings").write_text("\n".join(lines) + "\n", encoding="utf-8")
        categories = plural_categories(language)
        entries = []
        for index, key in enumerate(plural_keys):
            # Odd entries are placeholders-to-be (a count only), even ones summaries (a count and names).
            names = "" if index % 2 else " from %@"
            forms = "".join(
                f"            <key>{category}</key>\n            <string>%u {language} {category} {index}{names}</string>\n"
                for category in categories)
            entries.append(f"""    <key>{key}</key>
    <dict>
        <key>NSStringLocalizedFormatKey</key>
        <string>%#@items@</string>
        <key>items</key>
        <dict>
            <key>NSStringFormatSpecTypeKey</key>
            <string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key>
            <string>u</string>
{forms}        </dict>
    </dict>
""")
        (folder / "Localizable.stringsdict").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n' + "".join(entries) + "</dict>\n</plist>\n",
            encoding="utf-8")
    (out / "app.json").write_text(json.dumps({"apps": {"com.example.app": {
        "developmentLanguage": "en", "localizations": "Resources",
        "categories": [
            {"identifier": "msg", "categorySummaryFormat": {"key": plural_keys[0]}, "hiddenPreviewsBodyPlaceholder": {"key": plural_keys[1]}},
            {"identifier": "photo"},
        ]}}}, indent=2))
    payload_folder = out / "Payloads"
    payload_folder.mkdir(parents=True, exist_ok=True)
    for index in range(payloads):
        # Every third string key reads one %@: the one loc-arg each push sends.
        key = string_keys[3 * (index % (len(string_keys) // 3))]
        alert = {"title-loc-key": key, "title-loc-args": ["Teja"], "body": f"Body {index}", "summary-arg": "Teja"}
        category = "msg" if index else "messages"
        (payload_folder / f"push-{index}.json").write_text(json.dumps(
            {"aps": {"alert": alert, "thread-id": f"thread-{index % 9}", "category": category}}, indent=2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--languages", type=int, default=40)
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--payloads", type=int, default=200)
    arguments = parser.parse_args()
    write_project(arguments.out, LANGUAGES[:arguments.languages], arguments.keys, arguments.payloads)


if __name__ == "__main__":
    main()
