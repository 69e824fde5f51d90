#!/usr/bin/env python3
"""Times commands in alternating order and prints each one's median, minimum and maximum wall time.

Usage:
    python3 Tools/bench/interleave.py ROUNDS "COMMAND ONE" "COMMAND TWO" ...

Each round runs every command once, in forward order on even rounds and backward on odd ones, so that a
machine whose speed drifts (two shared cores drift 30-40% over minutes) weighs on all commands alike.
Commands are split on spaces (no shell); their output is discarded.
"""
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    commands = sys.argv[2:]
    times = [[] for _ in commands]
    for round_number in range(rounds):
        order = range(len(commands)) if round_number % 2 == 0 else reversed(range(len(commands)))
        for index in order:
            start = time.perf_counter()
            subprocess.run(commands[index].split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[index].append(time.perf_counter() - start)
    for command, samples in zip(commands, times):
        print(f"median {statistics.median(samples) * 1000:9.1f} ms  min {min(samples) * 1000:9.1f}  "
              f"max {max(samples) * 1000:9.1f}  n={len(samples)}  {command}")


if __name__ == "__main__":
    main()
