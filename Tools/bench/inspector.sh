#!/usr/bin/env bash
# Pushes into SQLite with and without a live request-inspector viewer (curl on /v1/admin/requests/stream),
# in interleaved rounds on one server: a viewer of every request (it must receive every one), and a viewer
# whose filter admits none of them.
#
#   HUDDLE=<release binary> Tools/bench/inspector.sh [PUSHES] [ROUNDS]     defaults: 20000 pushes, 3 rounds
#
# Needs h2load (apt-get install -y nghttp2-client) and the test set-up's Python (.venv: cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
pushes=${1:-20000}
rounds=${2:-3}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir
start_huddle "$huddle" "$work/serve.log" --database "$work/bench.sqlite" --admin-token bench
url=$huddle_url
printf '%s' '{"aps": {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here"}, "thread-id": "team"}}' >"$work/payload.json"
bench_setup "$url" "$work"
rate() {
    h2load -n "$pushes" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $(cat "$work/jwt")" "$url/3/device/$(cat "$work/device")" | awk '/finished in/ {print $4}'
}
# Pushes while a viewer follows QUERY's requests (empty: all of them); prints the rate and what it received.
with_viewer() {  # query
    curl -sN -o "$work/viewer.txt" -H "authorization: Bearer bench" "$url/v1/admin/requests/stream?$1" &
    local viewer=$! rate
    sleep 0.5
    rate=$(rate)
    sleep 1
    kill "$viewer"
    echo "$rate req/s; the viewer got $(grep -c '^event: request' "$work/viewer.txt") requests"
}
for round in $(seq "$rounds"); do
    echo "round $round without a viewer: $(rate) req/s"
    echo "round $round with a live inspector viewer of every request: $(with_viewer "") (of $pushes)"
    # A filter that admits none of the pushes: the viewer must cost little, and receive nothing.
    echo "round $round with a viewer of another device's requests: $(with_viewer "device=$(printf 'f%.0s' {1..64})")"
done
