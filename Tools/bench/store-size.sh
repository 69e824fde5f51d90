#!/usr/bin/env bash
# The size of a SQLite database holding PUSHES notifications (default 100,000, one app on one device, its limit
# raised to hold them all), and what filling it cost: the pushes' rate and the server's CPU per push. The server is
# stopped before the file is measured, so the write-ahead log is in the file; the size after VACUUM is given too.
# BEFORE=<binary> measures that build the same way in each round, for a before-and-after in one run.
#
#   HUDDLE=<release binary> [BEFORE=<binary>] Tools/bench/store-size.sh [PUSHES] [ROUNDS]
#
# Needs h2load (apt-get install -y nghttp2-client), sqlite3 (apt-get install -y sqlite3) and the test set-up's
# Python (.venv: cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
pushes=${1:-100000}
rounds=${2:-1}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir

measure() {  # label binary
    local database="$work/store.sqlite" before after rate bytes vacuumed server_pid
    rm -f "$database"*
    start_huddle "$2" "$work/serve.log" --database "$database" --admin-token bench --max-notifications-per-app "$pushes"
    server_pid=$huddle_pid
    bench_setup "$huddle_url" "$work"
    before=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
    rate=$(h2load -n "$pushes" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $(cat "$work/jwt")" "$huddle_url/3/device/$(cat "$work/device")" | awk '/finished in/ {print $4}')
    after=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
    stop_huddle "$server_pid"
    bytes=$(stat -c %s "$database")
    [[ ! -e $database-wal ]] || bytes=$((bytes + $(stat -c %s "$database-wal")))
    local count
    count=$(sqlite3 "$database" "SELECT count(*) FROM notifications")
    sqlite3 "$database" "VACUUM"
    vacuumed=$(stat -c %s "$database")
    echo "$1: $count notifications, $((bytes / 1024)) KiB ($((vacuumed / 1024)) KiB after VACUUM, $((vacuumed / count)) bytes each);" \
        "filled at $rate req/s, $(( (after - before) * 1000000 / $(getconf CLK_TCK) / pushes )) µs CPU per push"
}

for ((round = 1; round <= rounds; round++)); do
    echo "round $round"
    if [[ -n ${BEFORE:-} ]]; then measure "before" "$BEFORE"; fi
    measure "this build" "$huddle"
done
