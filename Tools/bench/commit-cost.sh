#!/usr/bin/env bash
# Where a push's CPU goes, by thread, and what one group commit costs: pushes into memory and into SQLite
# for SECONDS, with h2load (-c16 -m8, open enough that batches grow) or wrk (-c16, a closed loop: each
# connection waits for its commit, so batches stay small), on a fresh server each time. Prints, per push,
# the server's CPU (user+system, /proc) on
#
#   event loops     NIO's threads: HTTP, checks, the device's session (a push's task runs on its loop)
#   Swift's pool    the commit queue's writer task, and the in-memory store's commits
#   dispatch queues GRDB's queues: SQLite's writer (each batch's transaction), readers and checkpoints
#
# and, from the server's /metrics, the group commit's mean batch (writes per transaction) and mean commit
# time (wall, from the writer's call to its return), with the dispatch queues' CPU per commit. BEFORE=<binary>
# measures that build too, interleaved, round by round (this build first on odd rounds, that one on even ones).
#
#   HUDDLE=<release binary> [BEFORE=<binary>] Tools/bench/commit-cost.sh [h2load|wrk] [SECONDS] [ROUNDS]
#                                                                              defaults: wrk, 6 s, 2 rounds
#
# Needs h2load and wrk (apt-get install -y nghttp2-client wrk) and the test set-up's Python (.venv:
# cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
client=${1:-wrk}
duration=${2:-6}
rounds=${3:-2}
case $client in h2load | wrk) ;; *) echo "usage: commit-cost.sh [h2load|wrk] [SECONDS] [ROUNDS]" >&2; exit 2 ;; esac
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir
ticks_per_second=$(getconf CLK_TCK)

# CPU ticks of the server's threads so far, summed by group: "loops pool queues other".
thread_ticks() {  # pid
    local task
    for task in /proc/"$1"/task/*; do
        # A thread that ended meanwhile has nothing left to count.
        printf '%s %s\n' "$(tr ' ' _ <"$task/comm" 2>/dev/null || echo gone)" "$(awk '{print $14 + $15}' "$task/stat" 2>/dev/null || echo 0)"
    done | awk '
        $1 ~ /^NIO-/ { loops += $2; next }
        $1 ~ /default-qos$/ { pool += $2; next }
        $1 ~ /overcommit$/ { queues += $2; next }
        { other += $2 }
        END { print loops + 0, pool + 0, queues + 0, other + 0 }'
}

# The value of a metric line that begins with PREFIX, from a saved /metrics page; 0 when absent.
metric() {  # file prefix
    awk -v prefix="$2" 'index($0, prefix) == 1 { print $NF; found = 1; exit } END { if (!found) print 0 }' "$1"
}

measure() {  # label database binary
    local url pushes before after
    rm -f "$work"/*.sqlite*
    start_huddle "$3" "$work/serve.log" --database "$2" --admin-token bench --benchmark-routes
    bench_setup "$huddle_url" "$work"
    url="$huddle_url/3/device/$(cat "$work/device")"
    before=$(thread_ticks "$huddle_pid")
    if [[ $client == wrk ]]; then
        wrk_push_script "$work"
        pushes=$(wrk -t2 -c16 -d"${duration}s" -s "$work/post.lua" "$url" | awk '/requests in/ {print $1}')
    else
        pushes=$(h2load -D "$duration" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
            -H "authorization: bearer $(cat "$work/jwt")" "$url" | awk '/^requests:/ {print $8}')
    fi
    after=$(thread_ticks "$huddle_pid")
    curl -s "$huddle_url/metrics" >"$work/metrics"
    stop_huddle "$huddle_pid"
    local writes commits commit_seconds
    writes=$(metric "$work/metrics" huddle_group_committed_writes_total)
    commits=$(metric "$work/metrics" huddle_group_commits_total)
    commit_seconds=$(metric "$work/metrics" 'huddle_store_duration_seconds_sum{operation="commit"}')
    # The set-up's own writes (the device and its app) are not group commits; its few reads are noise here.
    awk -v label="$1" -v pushes="$pushes" -v tps="$ticks_per_second" -v duration="$duration" -v writes="$writes" \
        -v commits="$commits" -v seconds="$commit_seconds" -v before="$before" -v after="$after" 'BEGIN {
        split(before, b, " "); split(after, a, " ")
        us = 1000000 / tps / pushes
        printf "%s: %d pushes/s; µs per push: event loops %.1f, Swift'"'"'s pool %.1f, dispatch queues %.1f, other %.1f",
            label, pushes / duration, (a[1] - b[1]) * us, (a[2] - b[2]) * us, (a[3] - b[3]) * us, (a[4] - b[4]) * us
        if (commits > 0) printf "; %.1f writes per commit, %.0f µs per commit, dispatch queues %.0f µs CPU per commit",
            writes / commits, seconds / commits * 1000000, (a[3] - b[3]) * 1000000 / tps / commits
        printf "\n" }'
}

# The push that push-cpu.sh sends (bench_setup keeps a payload.json it finds).
printf '%s' '{"aps": {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here", "summary-arg": "Kritarth"}, "thread-id": "team", "category": "msg"}}' >"$work/payload.json"
# A measurement of this build and, with BEFORE, of the build before, in the round's order (lib.sh's builds_in_order).
measure_both() {  # round label database
    local build
    for build in $(builds_in_order "$1"); do
        if [[ $build == this ]]; then measure "$2" "$3" "$huddle"; else measure "$2 (before)" "$3" "$BEFORE"; fi
    done
}

for round in $(seq "$rounds"); do
    echo "== round $round ($client, $duration s)"
    measure_both "$round" "memory" memory
    measure_both "$round" "SQLite" "$work/bench.sqlite"
done
