#!/usr/bin/env python3
"""Writes a scenario of N deliveries for timing `huddle preview` (the same one Benchmarks' ScenarioBenchmarks uses).

Usage:
    python3 Tools/bench/scenario.py OUT.json [--deliveries 2000] [--indent]

One app with the summary format "%u more messages from %@"; APNs payloads with a title, body and summary
argument (five names), in seven threads. Without --indent the whole file is one line, the layout that once
took 15-25 s to load.
"""
import argparse
import json

NAMES = ["Kritarth", "Teja", "Michele", "Ana", "Song by Song"]


def scenario(deliveries):
    events = []
    for index in range(deliveries):
        name = NAMES[index % len(NAMES)]
        payload = {"aps": {"alert": {"title": name, "body": f"Message number {index} about the plan", "summary-arg": name},
                           "thread-id": f"thread-{index % 7}", "category": "msg", "sound": "default"},
                   "conversation": index % 7}
        events.append({"deliver": {"app": "com.example.chat", "id": f"m{index}", "payload": payload}})
    return {"apps": {"com.example.chat": {"categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}},
            "viewer": {"languages": ["en"]}, "events": events}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--indent", action="store_true")
    arguments = parser.parse_args()
    document = scenario(arguments.deliveries)
    with open(arguments.out, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=2 if arguments.indent else None, separators=None if arguments.indent else (",", ":"))


if __name__ == "__main__":
    main()
