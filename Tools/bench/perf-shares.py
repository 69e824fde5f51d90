#!/usr/bin/env python3
"""Shares of a perf recording's samples, by thread group and by function (Tools/bench/profile.sh records one).

Usage:
    python3 Tools/bench/perf-shares.py PERF_DATA [--top N] [--under FUNCTION] [--thread NAME]

Without --under: each thread group's share of the samples, then the functions with the largest inclusive shares
(a function counts once per sample whose stack holds it). With --under FUNCTION: the share of the samples under
the outermost frame whose name contains FUNCTION, and of each function it calls directly. --thread NAME keeps
the samples of threads whose name contains NAME (NIO-SGLTN: the event loops; overcommit: SQLite's writer queue);
shares stay shares of all samples. Names are demangled with swift-demangle; the text is cached beside the data.
"""
import argparse
import collections
import os
import re
import subprocess


def samples(data):
    """Each sample as (thread name, frames from the leaf outwards)."""
    cache = data + ".txt"
    if not os.path.exists(cache) or os.path.getmtime(cache) < os.path.getmtime(data):
        raw = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,ip,sym"], capture_output=True, text=True, check=True).stdout
        text = subprocess.run(["swift", "demangle", "--simplified"], input=raw, capture_output=True, text=True, check=True).stdout
        with open(cache, "w") as file:
            file.write(text)
    with open(cache) as file:
        for block in file.read().split("\n\n"):
            lines = [line.strip() for line in block.strip().split("\n") if line.strip()]
            if len(lines) < 2:
                continue
            frames = [re.sub(r"\+0x[0-9a-f]+$", "", (line.split(None, 1) + [""])[1])[:160] for line in lines[1:]]
            yield lines[0].split()[0], frames


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--under")
    parser.add_argument("--thread")
    arguments = parser.parse_args()

    total = 0
    threads = collections.Counter()
    shares = collections.Counter()
    under = 0
    for thread, frames in samples(arguments.data):
        total += 1
        threads[thread] += 1
        if arguments.thread and arguments.thread not in thread:
            continue
        if arguments.under:
            outermost = max((index for index, frame in enumerate(frames) if arguments.under in frame), default=None)
            if outermost is None:
                continue
            under += 1
            shares["(itself)" if outermost == 0 else frames[outermost - 1]] += 1
        else:
            for frame in set(frames):
                shares[frame] += 1
    if total == 0:
        raise SystemExit("no samples")
    if arguments.under:
        print(f"{100 * under / total:.2f}% of the samples are under {arguments.under}; what it calls:")
    else:
        print(f"{total} samples; threads: " + ", ".join(f"{name} {100 * count / total:.1f}%" for name, count in threads.most_common(6)))
    for frame, count in shares.most_common(arguments.top):
        print(f"{100 * count / total:6.2f}%  {frame}")


if __name__ == "__main__":
    main()
