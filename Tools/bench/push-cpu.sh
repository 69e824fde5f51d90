#!/usr/bin/env bash
# CPU time a push costs the server, and the push rate, per route and store, in interleaved rounds: the
# check-only route (every check, nothing stored), pushes into memory, pushes into SQLite, and with
# HUDDLE_TEST_POSTGRES_URL set (eval "$(scripts/postgres start)") pushes into PostgreSQL, on a new database
# each time; a fresh server for each measurement. CPU is the server's user+system time (/proc) over the
# pushes: it drifts less than a rate on a machine that other work shares. The CPU of PostgreSQL's backends
# for the database is given apart, when the cluster runs on this machine (as scripts/postgres runs it).
# BEFORE=<binary> adds the check-only route and pushes into memory and SQLite (and PostgreSQL) by that build
# to each round, for a before-and-after in one run (this build first on odd rounds, that one on even ones). Each round also measures nginx answering `return 200` to
# the same requests (its workers' CPU per request), the floor (Tools/bench/floor.sh). Ends with each measurement's median over the rounds and its rate as a share of the check-only
# route's.
#
#   HUDDLE=<release binary> [BEFORE=<binary>] Tools/bench/push-cpu.sh [PUSHES] [ROUNDS]
#                                                                         defaults: 20000 pushes, 2 rounds
#
# Needs h2load (apt-get install -y nghttp2-client), nginx (apt-get install -y nginx-light) and the test set-up's
# Python (.venv: cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
pushes=${1:-20000}
rounds=${2:-2}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir
# The PostgreSQL database a measurement has, for the cleanup when the script stops midway (the server is
# lib.sh's to stop).
postgres_database=""
on_exit drop_postgres_database
printf '%s' '{"aps": {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here", "summary-arg": "Kritarth"}, "thread-id": "team", "category": "msg"}}' >"$work/payload.json"

# One measurement: a new server (BINARY) on DATABASE, one device, PUSHES pushes to PATH_PREFIX/3/device/<token>.
# DATABASE `postgres` is a new database on the server of HUDDLE_TEST_POSTGRES_URL, dropped afterwards.
measure() {  # label database path-prefix [binary]
    local url server_pid database=$2 before after rate database_before database_cpu=""
    rm -f "$work"/*.sqlite*
    if [[ $database == postgres ]]; then
        local base=${HUDDLE_TEST_POSTGRES_URL%%\?*}
        postgres_database="huddle_push_cpu_$$_$RANDOM"
        psql -q "$HUDDLE_TEST_POSTGRES_URL" -c "CREATE DATABASE $postgres_database"
        database="${base%/*}/$postgres_database?sslmode=disable"
    fi
    start_huddle "${4:-$huddle}" "$work/serve.log" --database "$database" --admin-token bench --benchmark-routes
    url=$huddle_url server_pid=$huddle_pid
    bench_setup "$url" "$work"
    before=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
    database_before=$(postgres_ticks)
    rate=$(h2load -n "$pushes" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $(cat "$work/jwt")" "$url$3/3/device/$(cat "$work/device")" | awk '/finished in/ {print $4}')
    after=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
    if [[ -n $postgres_database ]]; then
        database_cpu=", $(( ($(postgres_ticks) - database_before) * 1000000 / $(getconf CLK_TCK) / pushes )) µs in PostgreSQL backends"
    fi
    stop_huddle "$server_pid"
    drop_postgres_database
    echo "$1: $rate req/s, $(( (after - before) * 1000000 / $(getconf CLK_TCK) / pushes )) µs CPU per push$database_cpu" | tee -a "$work/results"
}

# The CPU time (clock ticks) of the PostgreSQL backends serving the measurement's database; 0 without one.
postgres_ticks() {
    [[ -n $postgres_database ]] || { echo 0; return; }
    for backend in $(pgrep -f "postgres: [^ ]+ $postgres_database " || true); do
        awk '{print $14 + $15}' "/proc/$backend/stat" 2>/dev/null || true
    done | awk '{ total += $1 } END { print total + 0 }'
}

drop_postgres_database() {
    [[ -n $postgres_database ]] || return 0
    psql -q "$HUDDLE_TEST_POSTGRES_URL" -c "DROP DATABASE $postgres_database WITH (FORCE)"
    postgres_database=""
}

# nginx's CPU per request, for the same requests (it answers any path).
measure_nginx() {
    local before after rate
    before=$(process_ticks "$nginx_pid")
    rate=$(h2load -n "$pushes" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer x" "http://127.0.0.1:$nginx_h2/3/device/x" | awk '/finished in/ {print $4}')
    after=$(process_ticks "$nginx_pid")
    echo "nginx return 200: $rate req/s, $(( (after - before) * 1000000 / $(getconf CLK_TCK) / pushes )) µs CPU per push" | tee -a "$work/results"
}
start_nginx

# A measurement of this build and, with BEFORE, of the build before, in the round's order (lib.sh's builds_in_order).
measure_both() {  # round label database route-prefix
    local build
    for build in $(builds_in_order "$1"); do
        if [[ $build == this ]]; then measure "$2" "$3" "$4"; else measure "$2 (before)" "$3" "$4" "$BEFORE"; fi
    done
}

for round in $(seq "$rounds"); do
    echo "== round $round"
    measure_both "$round" "check-only route" "$work/check.sqlite" /bench/check
    measure_both "$round" "pushes into memory" memory ""
    measure_both "$round" "pushes into SQLite" "$work/push.sqlite" ""
    measure_nginx
    if [[ -n ${HUDDLE_TEST_POSTGRES_URL:-} ]]; then
        measure_both "$round" "pushes into PostgreSQL" postgres ""
    fi
done
echo "== medians over $rounds rounds"
awk -F': ' '{ split($2, figures, " "); rate[$1] = rate[$1] " " figures[1]; cpu[$1] = cpu[$1] " " figures[3]; if (figures[8] != "") database[$1] = database[$1] " " figures[8]; if (!($1 in seen)) { seen[$1]; order[++labels] = $1 } }
    function median(list,    values, count, i, j, swap) {
        count = split(list, values, " ")
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) { swap = values[i]; values[i] = values[j]; values[j] = swap }
        return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
    }
    END { base = median(rate[order[1]]); for (i = 1; i <= labels; i++) printf "%s: %.0f req/s (%.0f%% of the check-only route), %.0f µs CPU per push%s\n", order[i], median(rate[order[i]]), 100 * median(rate[order[i]]) / base, median(cpu[order[i]]), order[i] in database ? sprintf(", %.0f µs in PostgreSQL backends", median(database[order[i]])) : "" }' "$work/results"
