#!/usr/bin/env bash
# Push throughput by store: SQLite (one server), PostgreSQL with one server, and PostgreSQL with two servers
# on one database, measured with wrk (HTTP/1.1) and h2load (HTTP/2) in interleaved rounds of one run.
#
#   Tools/bench/stores.sh [DURATION_SECONDS]
#
# Needs: apt-get install -y wrk nghttp2-client postgresql; a release build (swift build -c release --product
# huddle --scratch-path .build-release). Servers run with --development (no provider tokens: the stores are
# under test, not the signatures); the load goes to 16 devices, as real pushes go to many.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir
postgres_environment=$(scripts/postgres start)  # apart from the eval, so that a failure stops the script
eval "$postgres_environment"
on_exit scripts/postgres stop "$HUDDLE_TEST_POSTGRES_DIR"

# bench_setup.py registers its signing key through the admin API (--admin-token); --development leaves the
# provider token it writes unchecked, and unsent.
start_server() {  # database
    start_huddle "$huddle" "$work/serve.log" --database "$1" --development --admin-token bench
}

wrk_rate() {  # url tokens-file
    local script="$work/post-$RANDOM.lua"
    { echo "local tokens = {"; sed 's/.*/"&",/' "$2"; echo "}"
      cat <<LUA
local index = 0
wrk.method = "POST"
wrk.body = io.open("$work/payload.json"):read("*a")
wrk.headers["apns-topic"] = "com.example.bench"
wrk.headers["content-type"] = "application/json"
request = function()
    index = index + 1
    return wrk.format(nil, "/3/device/" .. tokens[index % #tokens + 1])
end
LUA
    } > "$script"
    wrk -t1 -c8 -d"${duration}s" -s "$script" "$1" | awk '/Requests\/sec/ {print $2}'
}

h2load_rate() {  # url tokens-file
    local uris=()
    while read -r token; do uris+=("$1/3/device/$token"); done < "$2"
    h2load -D "$duration" -c8 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" "${uris[@]}" | awk '/finished in/ {print $4}'
}

# One configuration: its servers, its devices, wrk then h2load on every server at once; prints the sums.
measure() {  # label database-for-each-server...
    local label=$1; shift
    local urls=()
    for database in "$@"; do
        start_server "$database"
        urls+=("$huddle_url")
    done
    # 16 devices with the bench app, through the first server, and the 544-byte payload (made on the first call).
    bench_setup "${urls[0]}" "$work" --devices 16
    for tool in wrk_rate h2load_rate; do
        local pids=() files=() index
        for index in "${!urls[@]}"; do
            local file="$work/rate-$index-$tool"
            "$tool" "${urls[$index]}" "$work/devices" > "$file" &
            pids+=($!); files+=("$file")
        done
        wait "${pids[@]}"
        local total
        total=$(cat "${files[@]}" | awk '{ sum += $1 } END { printf "%.0f", sum }')
        echo "${tool%_rate} $label: $total pushes/s ($(cat "${files[@]}" | paste -sd+))"
    done
    stop_huddle
}

# ASYNC_COMMIT=1 turns PostgreSQL's synchronous_commit off for the benchmark databases: commits no longer
# wait for the WAL to reach the disk (SQLite's synchronous=NORMAL does not wait either), which shows how much
# of PostgreSQL's cost is that wait. Huddle itself never changes the setting.
postgres_database() {  # name
    psql -q "$HUDDLE_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"
    if [[ "${ASYNC_COMMIT:-0}" == 1 ]]; then psql -q "$HUDDLE_TEST_POSTGRES_URL" -c "ALTER DATABASE $1 SET synchronous_commit = off"; fi
    echo "${HUDDLE_TEST_POSTGRES_URL%/*}/$1"
}

for round in 1 2; do
    rm -f "$work/bench.sqlite"*
    measure "SQLite, one server (round $round)" "$work/bench.sqlite"
    db=$(postgres_database "bench_one_$round")
    measure "PostgreSQL, one server (round $round)" "$db"
    db=$(postgres_database "bench_two_$round")
    measure "PostgreSQL, two servers (round $round)" "$db" "$db"
done
