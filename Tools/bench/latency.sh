#!/usr/bin/env bash
# The latency of a push into SQLite at a fixed rate (half the peak is the usual choice: Tools/bench/floor.sh
# gives the peak): h2load sends RATE pushes a second from 16 connections, one at a time on each, for SECONDS,
# and logs every request's time; prints its p50, p99 and p99.9 per round, then their medians. BEFORE=<binary>
# measures that build too, in the same rounds.
#
#   HUDDLE=<release binary> [BEFORE=<binary>] Tools/bench/latency.sh RATE [SECONDS] [ROUNDS]     defaults: 10 s, 3 rounds
#
# Needs h2load (apt-get install -y nghttp2-client) and the test set-up's Python (.venv: cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:?usage: latency.sh RATE [SECONDS] [ROUNDS]}
duration=${2:-10}
rounds=${3:-3}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir

measure() {  # label binary
    rm -f "$work"/*.sqlite* "$work/requests.log"
    start_huddle "$2" "$work/serve.log" --database "$work/push.sqlite" --admin-token bench --benchmark-routes
    bench_setup "$huddle_url" "$work"
    h2load -D "$duration" -c16 -m1 -t1 --rps="$(( (rate + 15) / 16 ))" --log-file="$work/requests.log" -d "$work/payload.json" \
        -H "apns-topic: com.example.bench" -H "authorization: bearer $(cat "$work/jwt")" \
        "$huddle_url/3/device/$(cat "$work/device")" >/dev/null
    stop_huddle "$huddle_pid"
    # Each line: start, status, duration in µs.
    sort -n -k3 "$work/requests.log" | awk -v label="$1" '{ d[NR] = $3; if ($2 != 200) bad++ }
        END { printf "%s: p50 %d µs, p99 %d µs, p99.9 %d µs, %d pushes, %d not 200\n", label, d[int(NR * 0.5)], d[int(NR * 0.99)], d[int(NR * 0.999)], NR, bad }' |
        tee -a "$work/results"
}

for round in $(seq "$rounds"); do
    echo "== round $round ($rate pushes/s)"
    measure "pushes into SQLite" "$huddle"
    if [[ -n ${BEFORE:-} ]]; then measure "pushes into SQLite (before)" "$BEFORE"; fi
done
echo "== medians over $rounds rounds"
awk -F': ' '{ split($2, f, " "); p50[$1] = p50[$1] " " f[2]; p99[$1] = p99[$1] " " f[5]; p999[$1] = p999[$1] " " f[8]; if (!($1 in seen)) { seen[$1]; order[++n] = $1 } }
    function median(list,    v, c, i, j, s) {
        c = split(list, v, " ")
        for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) { s = v[i]; v[i] = v[j]; v[j] = s }
        return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
    }
    END { for (i = 1; i <= n; i++) printf "%s: p50 %d µs, p99 %d µs, p99.9 %d µs\n", order[i], median(p50[order[i]]), median(p99[order[i]]), median(p999[order[i]]) }' "$work/results"
