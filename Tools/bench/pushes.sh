#!/usr/bin/env bash
# Push throughput into each store against the server's own baselines, in interleaved rounds of one run:
#
# - /bench/accept: reads the body, checks and stores nothing (the HTTP floor);
# - /bench/check/3/device/…: every provider check, the token's verification and the payload's decoding,
#   stores nothing (the figure pushes into a store are a share of);
# - pushes into SQLite, into the in-memory store, into PostgreSQL (one server, and two servers sharing one
#   database, pushed to at once), each to one device (a hot thread) and spread over 1,000 devices;
# - the p50 and p99 of a push into SQLite at half of its measured peak rate (h2load --rps, per-request log).
#
#   Tools/bench/pushes.sh [DURATION_SECONDS]        ROUNDS=2 by default; HUDDLE=<release binary>
#
# PostgreSQL rows need HUDDLE_TEST_POSTGRES_URL (eval "$(scripts/postgres start)"); without it they are left
# out. Needs wrk and h2load (apt-get install -y wrk nghttp2-client) and python3 with `cryptography` (the test
# set-up's .venv). Prints one line per measurement.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
rounds=${ROUNDS:-2}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir
databases=()
drop_databases() {
    for name in "${databases[@]}"; do psql -q "$HUDDLE_TEST_POSTGRES_URL" -c "DROP DATABASE $name WITH (FORCE)" 2>/dev/null || true; done
}
on_exit drop_databases

# Starts a server on DATABASE and waits for it: sets huddle_url.
start_server() {  # database
    start_huddle "$huddle" "$work/serve.log" --database "$1" --admin-token bench --benchmark-routes
}

# Registers the key (one for every server, made on first use) and 1,000 devices with the bench app through
# URL; writes NAME.devices (one token per line), and the provider token and payload all servers take.
prepare() {  # url name
    mkdir -p "$work/$2"
    bench_setup "$1" "$work/$2" --devices 1000 --key "$work/key.p8"
    cp "$work/$2/devices" "$work/$2.devices"
    cp "$work/$2/jwt" "$work/$2/payload.json" "$work/"
    jwt=$(cat "$work/jwt")
}

# The wrk script and h2load URI list for pushes to PATHS (one device, or all of NAME's devices).
targets() {  # url name prefix count
    head -n "$4" "$work/$2.devices" | sed "s|^|$1$3/3/device/|" >"$work/$2-$4.uris"
    {
        echo 'local paths = {}'
        head -n "$4" "$work/$2.devices" | sed "s|^|table.insert(paths, \"$3/3/device/|; s|\$|\")|"
        echo "wrk.method = \"POST\""
        echo "wrk.body = io.open(\"$work/payload.json\"):read(\"*a\")"
        echo "wrk.headers[\"apns-topic\"] = \"com.example.bench\""
        echo "wrk.headers[\"authorization\"] = \"bearer $jwt\""
        echo 'local index = 0'
        echo 'request = function() index = index % #paths + 1; return wrk.format(nil, paths[index]) end'
    } >"$work/$2-$4.lua"
}

wrk_rate() {  # url name count
    wrk -t2 -c16 -d"${duration}s" -s "$work/$2-$3.lua" "$1" | awk '/Requests\/sec/ {print $2}'
}
h2load_rate() {  # uris-file [extra h2load options]
    local file=$1; shift
    h2load -D "$duration" -c16 -m8 -t2 -d "$work/payload.json" -H "apns-topic: com.example.bench" -H "authorization: bearer $jwt" \
        "$@" -i "$file" | awk '/finished in/ {print $4}'
}

start_server "$work/bench.sqlite"; sqlite=$huddle_url
start_server memory; memory=$huddle_url
prepare "$sqlite" sqlite
prepare "$memory" memory
# The baselines run on the SQLite server; /bench/accept needs a path list of its own.
targets "$sqlite" sqlite /bench/check 1
mv "$work/sqlite-1.lua" "$work/check-1.lua"; mv "$work/sqlite-1.uris" "$work/check-1.uris"
sed 's|/bench/check/3/device/[0-9a-f]*|/bench/accept|' "$work/check-1.lua" >"$work/accept-1.lua"
echo "$sqlite/bench/accept" >"$work/accept-1.uris"
for store in sqlite memory; do
    url=$sqlite; [[ $store == memory ]] && url=$memory
    targets "$url" "$store" "" 1
    targets "$url" "$store" "" 1000
done

postgres_runs=()
if [[ -n "${HUDDLE_TEST_POSTGRES_URL:-}" ]]; then
    base=${HUDDLE_TEST_POSTGRES_URL%%\?*}; base=${base%/*}
    for name in one two; do
        database="huddle_bench_${name}_$$"
        psql -q "$HUDDLE_TEST_POSTGRES_URL" -c "CREATE DATABASE $database"
        databases+=("$database")
        echo "$base/$database?sslmode=disable" >"$work/$name.url"
    done
    start_server "$(cat "$work/one.url")"; postgres=$huddle_url
    prepare "$postgres" postgres
    targets "$postgres" postgres "" 1
    targets "$postgres" postgres "" 1000
    # Two servers on one database: the same devices, pushed to through both at once.
    start_server "$(cat "$work/two.url")"; first=$huddle_url
    start_server "$(cat "$work/two.url")"; second=$huddle_url
    prepare "$first" shared
    targets "$first" shared "" 1000; mv "$work/shared-1000.uris" "$work/shared-first.uris"
    targets "$second" shared "" 1000; mv "$work/shared-1000.uris" "$work/shared-second.uris"
    postgres_runs=(postgres)
fi

for round in $(seq "$rounds"); do
    echo "== round $round"
    echo "wrk    accept (stores nothing, checks nothing): $(wrk_rate "$sqlite" accept 1) req/s"
    echo "h2load accept:                                  $(h2load_rate "$work/accept-1.uris") req/s"
    echo "wrk    check-only route (every check, no store): $(wrk_rate "$sqlite" check 1) req/s"
    echo "h2load check-only route:                         $(h2load_rate "$work/check-1.uris") req/s"
    for store in sqlite memory "${postgres_runs[@]}"; do
        url=$sqlite; [[ $store == memory ]] && url=$memory; [[ $store == postgres ]] && url=$postgres
        for count in 1 1000; do
            echo "wrk    pushes into $store, $count device(s): $(wrk_rate "$url" "$store" "$count") req/s"
            echo "h2load pushes into $store, $count device(s): $(h2load_rate "$work/$store-$count.uris") req/s"
        done
    done
    if ((${#postgres_runs[@]})); then
        h2load_rate "$work/shared-first.uris" >"$work/first.rate" &
        first_load=$!
        h2load_rate "$work/shared-second.uris" >"$work/second.rate"
        wait "$first_load"  # not a bare wait: the servers are this shell's children too
        echo "h2load pushes into PostgreSQL through two servers at once, 1000 devices: $(cat "$work/first.rate") + $(cat "$work/second.rate") req/s"
    fi
done

# Latency at half the peak: the last round's h2load rate into SQLite (1,000 devices), shared by 16 clients.
peak=$(h2load_rate "$work/sqlite-1000.uris")
per_client=$(python3 -c "print(max(1, int(float('$peak') / 2 / 16)))")
h2load -D "$duration" -c16 -m8 -t2 --rps "$per_client" -d "$work/payload.json" -H "apns-topic: com.example.bench" \
    -H "authorization: bearer $jwt" --log-file "$work/latency.log" -i "$work/sqlite-1000.uris" >"$work/latency.txt"
python3 - "$work/latency.log" "$peak" "$(awk '/finished in/ {print $4}' "$work/latency.txt")" <<'PY'
import sys
durations = sorted(int(line.split()[2]) for line in open(sys.argv[1]) if line.strip())
def percentile(p): return durations[min(len(durations) - 1, int(p / 100 * len(durations)))] / 1000
print(f"pushes into SQLite at half the peak ({sys.argv[3]} of {sys.argv[2]} req/s, 1000 devices): "
      f"p50 {percentile(50):.2f} ms, p99 {percentile(99):.2f} ms ({len(durations)} pushes)")
PY
