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
huddle=${HUDDLE:-.build-release/release/huddle}
work=$(mktemp -d)
eval "$(scripts/postgres start)"
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/postgres stop "$HUDDLE_TEST_POSTGRES_DIR" >/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# A 544-byte payload, as in Tools/bench/server.sh.
python3 - "$work/payload.json" <<'PY'
import json, sys
payload = {"aps": {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here, come to the lab on the second floor", "summary-arg": "Kritarth"},
                   "thread-id": "team", "category": "msg", "sound": "default"}, "conversation": {"id": 51413, "kind": "group"}}
text = json.dumps(payload)
open(sys.argv[1], "w").write(text[:-1] + ', "padding": "' + "x" * (544 - len(text) - 15) + '"}')
PY

start_server() {  # port database
    LOG_LEVEL=error "$huddle" serve --port "$1" --database "$2" --development &
    servers+=($!)
    for _ in $(seq 200); do curl -s "http://127.0.0.1:$1/health" >/dev/null && return; sleep 0.1; done
    echo "huddle serve on $1 did not start" >&2; exit 1
}

stop_servers() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait "${servers[@]}" 2>/dev/null || true
    servers=()
}

# Registers 16 devices with one app through the first server; writes their tokens, one per line.
make_devices() {  # url file
    python3 - "$1" "$2" <<'PY'
import json, sys, urllib.request
url, out = sys.argv[1], sys.argv[2]
def call(method, path, body, secret=None):
    headers = {"content-type": "application/json"}
    if secret: headers["authorization"] = f"Bearer {secret}"
    return json.load(urllib.request.urlopen(urllib.request.Request(url + path, data=json.dumps(body).encode(), method=method, headers=headers)))
tokens = []
for index in range(16):
    device = call("POST", "/v1/devices", {"name": f"bench {index}"})
    call("PUT", f"/v1/devices/{device['token']}/apps/com.example.bench",
         {"categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}, device["secret"])
    tokens.append(device["token"])
open(out, "w").write("\n".join(tokens) + "\n")
PY
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
    local ports=() index=0
    for database in "$@"; do
        ports+=($((21000 + RANDOM % 20000)))
        start_server "${ports[$index]}" "$database"
        index=$((index + 1))
    done
    make_devices "http://127.0.0.1:${ports[0]}" "$work/tokens"
    for tool in wrk_rate h2load_rate; do
        local pids=() files=()
        for port in "${ports[@]}"; do
            local file="$work/rate-$port-$tool"
            "$tool" "http://127.0.0.1:$port" "$work/tokens" > "$file" &
            pids+=($!); files+=("$file")
        done
        wait "${pids[@]}"
        local total
        total=$(cat "${files[@]}" | awk '{ sum += $1 } END { printf "%.0f", sum }')
        echo "${tool%_rate} $label: $total pushes/s ($(paste -sd+ "${files[@]}"))"
    done
    stop_servers
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
