#!/usr/bin/env bash
# Where a push's CPU goes, by function: `perf record` (user time, DWARF call stacks) on a release server while a
# load tool sends the bench push for SECONDS, then perf-shares.py's summary of the samples. The profiles this
# issue's closing notes quote (issue 45) came from here.
#
#   HUDDLE=<release binary> Tools/bench/profile.sh ROUTE CLIENT [SECONDS] [OUT]
#       ROUTE   check (the check-only route), memory or sqlite (pushes stored)
#       CLIENT  h2load (-c16 -m8 -t1) or wrk (-t1 -c16)
#       OUT     where perf's data is kept (default: a file in the work directory, removed on exit)
#
# Prints the rate under perf, then each thread group's share of the samples and the functions with the largest
# inclusive shares. Read OUT further with python3 Tools/bench/perf-shares.py OUT [--under FUNCTION] [--thread NAME].
# Needs perf (apt-get install -y linux-perf; this machine's VM has no hardware counters, hence cpu-clock), h2load
# and wrk (apt-get install -y nghttp2-client wrk), swift-demangle (the Swift toolchain) and the test set-up's
# Python (.venv: cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
route=${1:?"give a route: check, memory or sqlite"}
client=${2:?"give a client: h2load or wrk"}
seconds=${3:-8}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir
out=${4:-$work/perf.data}
case $route in
    check) database=memory prefix=/bench/check ;;
    memory) database=memory prefix="" ;;
    sqlite) database="$work/bench.sqlite" prefix="" ;;
    *) echo "profile.sh: the route is check, memory or sqlite, not $route" >&2; exit 64 ;;
esac
printf '%s' '{"aps": {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here", "summary-arg": "Kritarth"}, "thread-id": "team", "category": "msg"}}' >"$work/payload.json"
start_huddle "$huddle" "$work/serve.log" --database "$database" --admin-token bench --benchmark-routes
bench_setup "$huddle_url" "$work"
wrk_push_script "$work"
url="$huddle_url$prefix/3/device/$(cat "$work/device")"

load() {  # seconds
    if [[ $client == h2load ]]; then
        h2load -D "$1" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
            -H "authorization: bearer $(cat "$work/jwt")" "$url" | awk '/finished in/ {print "rate under perf: " $4 " req/s"}'
    elif [[ $client == wrk ]]; then
        wrk -t1 -c16 -d"$1s" -s "$work/post.lua" "$url" | awk '/Requests\/sec/ {print "rate under perf: " $2 " req/s"}'
    else
        echo "profile.sh: the client is h2load or wrk, not $client" >&2
        exit 64
    fi
}
# A warm-up first: the inspector's log full, the app at its limit, the caches of tokens and sessions filled.
load 2 >/dev/null
perf record -e cpu-clock:u --call-graph dwarf,32768 -F 2000 -o "$out" -p "$huddle_pid" 2>/dev/null &
perf_pid=$!
sleep 1
load "$seconds"
kill -INT "$perf_pid"
wait "$perf_pid" || true
"$bench_python" Tools/bench/perf-shares.py "$out"
