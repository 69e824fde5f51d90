#!/usr/bin/env bash
# Every throughput figure as a share of the machine's HTTP floor: nginx answering `return 200` on the same
# cores, to the same POST (the 544-byte payload and a push's headers), measured in the same run, interleaved
# with Huddle's routes, as ../shared/spec/tooling.md describes:
#
#   nginx `return 200`           the floor (h2c with prior knowledge for h2load, HTTP/1.1 for wrk)
#   /bench/accept                Huddle reads the body and answers 200
#   /bench/check/3/device/…      every check of a push, nothing stored
#   pushes into memory, SQLite   the provider endpoint, stored
#
#   HUDDLE=<release binary> [BEFORE=<binary>] Tools/bench/floor.sh [DURATION_SECONDS] [ROUNDS]
#                                                                                    defaults: 5 s, 3 rounds
#
# BEFORE=<binary> adds the same routes served by that build (rows marked "(before)") to each round, for a
# before-and-after in one run: each route is measured on both builds, this one first on odd rounds and the build
# before first on even ones (lib.sh's builds_in_order).
#
# Needs nginx (apt-get install -y nginx-light), wrk and h2load (apt-get install -y wrk nghttp2-client), and
# the test set-up's Python (.venv: cryptography). Prints each measurement, then a table of medians with each
# rate as a share of nginx's with the same client.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-5}
rounds=${2:-3}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir

start_nginx

# Two servers: the provider endpoint into memory, and into SQLite (whose check-only and accept routes are
# measured too: they store nothing).
start_huddle "$huddle" "$work/memory.log" --database memory --admin-token bench --benchmark-routes
memory_url=$huddle_url
mkdir -p "$work/memory"
bench_setup "$memory_url" "$work/memory"
start_huddle "$huddle" "$work/sqlite.log" --database "$work/bench.sqlite" --admin-token bench --benchmark-routes
sqlite_url=$huddle_url
mkdir -p "$work/sqlite"
bench_setup "$sqlite_url" "$work/sqlite"
cp "$work/sqlite/payload.json" "$work/payload.json"
# The same servers of the build before, on the same key (one provider token serves all).
if [[ -n ${BEFORE:-} ]]; then
    start_huddle "$BEFORE" "$work/memory-before.log" --database memory --admin-token bench --benchmark-routes
    memory_before_url=$huddle_url
    mkdir -p "$work/memory-before"
    bench_setup "$memory_before_url" "$work/memory-before" --key "$work/sqlite/key.p8"
    start_huddle "$BEFORE" "$work/sqlite-before.log" --database "$work/before.sqlite" --admin-token bench --benchmark-routes
    sqlite_before_url=$huddle_url
    mkdir -p "$work/sqlite-before"
    bench_setup "$sqlite_before_url" "$work/sqlite-before" --key "$work/sqlite/key.p8"
fi

# The same headers for every target (nginx ignores them), so that every request is the same bytes.
headers_for() {  # setup-folder
    echo "apns-topic: com.example.bench"
    echo "authorization: bearer $(cat "$1/jwt")"
}
for folder in memory sqlite memory-before sqlite-before; do
    if [[ -d $work/$folder ]]; then wrk_push_script "$work/$folder"; fi
done

measure() {  # label client h2-url h1-url setup-folder
    local rate header_arguments=()
    if [[ $2 == h2load ]]; then
        while IFS= read -r header; do header_arguments+=(-H "$header"); done < <(headers_for "$5")
        rate=$(h2load -D "$duration" -c16 -m8 -t2 -d "$work/payload.json" "${header_arguments[@]}" "$3" | awk '/finished in/ {print $4}')
    else
        rate=$(wrk -t2 -c16 -d"${duration}s" -s "$5/post.lua" "$4" | awk '/Requests\/sec/ {print $2}')
    fi
    echo "$2 $1: $rate req/s" | tee -a "$work/results"
}

# One route of this build and, with BEFORE, of the build before, in the round's order (lib.sh's builds_in_order).
# DEVICE in the path stands for the server's bench device.
measure_both() {  # round client label label-before path memory|sqlite
    local build url folder path label
    for build in $(builds_in_order "$1"); do
        if [[ $build == this ]]; then
            folder="$work/$6"
            label=$3
            if [[ $6 == memory ]]; then url=$memory_url; else url=$sqlite_url; fi
        else
            folder="$work/$6-before"
            label=$4
            if [[ $6 == memory ]]; then url=$memory_before_url; else url=$sqlite_before_url; fi
        fi
        path=${5//DEVICE/$(cat "$folder/device")}
        measure "$label" "$2" "$url$path" "$url$path" "$folder"
    done
}

for round in $(seq "$rounds"); do
    echo "== round $round"
    for client in h2load wrk; do
        measure "nginx return 200" "$client" "http://127.0.0.1:$nginx_h2/3/device/x" "http://127.0.0.1:$nginx_h1/3/device/x" "$work/sqlite"
        measure_both "$round" "$client" "/bench/accept" "/bench/accept (before)" /bench/accept sqlite
        measure_both "$round" "$client" "check-only route" "check-only (before)" "/bench/check/3/device/DEVICE" sqlite
        measure_both "$round" "$client" "pushes into memory" "memory (before)" "/3/device/DEVICE" memory
        measure_both "$round" "$client" "pushes into SQLite" "SQLite (before)" "/3/device/DEVICE" sqlite
    done
done

echo "== medians over $rounds rounds ($duration s each; h2load -c16 -m8 -t2, wrk -t2 -c16)"
awk -F': ' '
    { split($1, head, " "); client = head[1]; label = substr($1, length(client) + 2); split($2, figures, " ")
      rates[client, label] = rates[client, label] " " figures[1]
      if (!(label in seen)) { seen[label]; order[++labels] = label } }
    function median(list,    values, count, i, j, swap) {
        count = split(list, values, " ")
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) { swap = values[i]; values[i] = values[j]; values[j] = swap }
        return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
    }
    END {
        printf "| %-20s | %-14s | %-14s | %-14s | %-14s |\n", "route", "HTTP/2 (h2load)", "share of nginx", "HTTP/1.1 (wrk)", "share of nginx"
        h2floor = median(rates["h2load", order[1]]); h1floor = median(rates["wrk", order[1]])
        for (i = 1; i <= labels; i++) {
            h2 = median(rates["h2load", order[i]]); h1 = median(rates["wrk", order[i]])
            printf "| %-20s | %14.0f | %14.2f | %14.0f | %14.2f |\n", order[i], h2, h2 / h2floor, h1, h1 / h1floor
        }
    }' "$work/results"
