#!/usr/bin/env bash
# Push throughput and center-read latency of `huddle serve`, measured with wrk (HTTP/1.1) and h2load
# (HTTP/2), against the no-store baseline route of the same build in the same run; then reads of a large
# center against reads of an empty one (the HTTP floor), reads while pushes go to the same device, and
# pushes with 200 live viewers against pushes with none.
#
#   Tools/bench/server.sh [DURATION_SECONDS]
#
# Needs: apt-get install -y wrk nghttp2-client; a release build (swift build -c release --product huddle
# --scratch-path .build-release). Prints one line per measurement.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir

# 200 viewers of one device: more than the default limit of streams per device.
start_huddle "$huddle" "$work/serve.log" --database "$work/bench.sqlite" --admin-token bench --benchmark-routes \
    --max-streams-per-device 256
url=$huddle_url

# A signing key, a device with one app, a provider token and the payload.
bench_setup "$url" "$work"
token=$(cat "$work/device"); jwt=$(cat "$work/jwt")
wrk_push_script "$work"

measure_wrk() {  # label path
    local rate
    rate=$(wrk -t2 -c16 -d"${duration}s" -s "$work/post.lua" "$url$2" | awk '/Requests\/sec/ {print $2}')
    echo "wrk HTTP/1.1  $1: $rate req/s"
}
measure_h2load() {  # label path
    local rate
    rate=$(h2load -D "$duration" -c16 -m8 -t2 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $jwt" "$url$2" | awk '/finished in/ {print $4}')
    echo "h2load HTTP/2 $1: $rate req/s"
    echo "$rate" >"$work/last-h2load-rate"
}
# Interleaved, so drift over minutes hits both alike.
for round in 1 2; do
    measure_wrk "no-store baseline (round $round)" /bench/accept
    measure_wrk "pushes into SQLite (round $round)" "/3/device/$token"
    measure_h2load "no-store baseline (round $round)" /bench/accept
    measure_h2load "pushes into SQLite (round $round)" "/3/device/$token"
done

# A device of its own with the bench app and NOTIFICATIONS notifications in 500 groups: "token secret".
new_device() {  # name notifications
    python3 - "$url" "$1" "$2" <<'PY'
import json, sys, urllib.request
url, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def call(method, path, body, secret=None):
    headers = {"content-type": "application/json"}
    if secret: headers["authorization"] = f"Bearer {secret}"
    return json.load(urllib.request.urlopen(urllib.request.Request(url + path, data=json.dumps(body).encode(), method=method, headers=headers)))
device = call("POST", "/v1/devices", {"name": name})
base = f"/v1/devices/{device['token']}"
call("PUT", f"{base}/apps/com.example.bench", {"categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}, device["secret"])
for i in range(count):
    call("POST", f"{base}/apps/com.example.bench/notifications",
         {"id": f"fill-{i}", "content": {"title": "Sender", "body": f"message {i}", "threadIdentifier": f"thread-{i % 500}",
                                         "categoryIdentifier": "msg", "summaryArgument": f"Person {i % 7}"}}, device["secret"])
print(device["token"], device["secret"])
PY
}
read_latency() {  # connections secret path
    wrk -t1 -c"$1" -d"${duration}s" --latency -H "authorization: Bearer $2" "$url$3" \
        | awk '/ 99%/ {print $2} /Requests\/sec/ {print "(" $2 " req/s)"}' | tr '\n' ' '
}

# Reading a center of 10,000 notifications in 500 groups, and an empty one (the HTTP floor), in turns.
read -r reader reader_secret < <(new_device reader 10000)
read -r empty empty_secret < <(new_device empty 0)
# One connection: the latency of a read alone; four: reads queueing for the same device.
for connections in 1 4; do
    echo "empty center (limit=3, $connections connection(s)): p99 $(read_latency "$connections" "$empty_secret" "/v1/devices/$empty/center?languages=en&limit=3")"
done
for query in "limit=3" ""; do
    for connections in 1 4; do
        latency=$(read_latency "$connections" "$reader_secret" "/v1/devices/$reader/center?languages=en&$query")
        echo "center of 10,000 notifications in 500 groups (${query:-every notification}, $connections connection(s)): p99 $latency"
    done
done

# Reads of a device while a provider pushes to that same device at full rate; then the same load's floor:
# reads of the empty center during those pushes, and of the large center during check-only pushes (which
# store nothing and leave every center alone).
read_while_pushing() {  # label push-path secret read-path [h2load options]
    h2load -D "$duration" -c16 -m8 -t1 "${@:5}" -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $jwt" "$url$2" >"$work/pushes-during-reads.txt" &
    local pusher=$! latency
    latency=$(read_latency 1 "$3" "$4")
    wait "$pusher"
    echo "$1: p99 $latency; pushes $(awk '/finished in/ {print $4}' "$work/pushes-during-reads.txt") req/s"
}
read_while_pushing "center read (limit=3, 1 connection) while pushes go to the same device" \
    "/3/device/$reader" "$reader_secret" "/v1/devices/$reader/center?languages=en&limit=3"
read_while_pushing "empty center read (limit=3, 1 connection) while pushes go to the large one" \
    "/3/device/$reader" "$empty_secret" "/v1/devices/$empty/center?languages=en&limit=3"
read_while_pushing "center read (limit=3, 1 connection) during check-only pushes" \
    "/bench/check/3/device/$token" "$reader_secret" "/v1/devices/$reader/center?languages=en&limit=3"
# At full rate the two cores are saturated (the load generator shares them), so the reads above wait for the
# CPU whatever they do. At half the peak push rate of the last round above (16 clients, each at its share),
# what is left is the read path's own wait behind the write path.
half_rate_per_client=$(( $(cut -d. -f1 "$work/last-h2load-rate") / 2 / 16 ))
read_while_pushing "center read (limit=3, 1 connection) while pushes go to the same device at half the peak rate" \
    "/3/device/$reader" "$reader_secret" "/v1/devices/$reader/center?languages=en&limit=3" --rps "$half_rate_per_client"

# Pushes to a device that 200 live viewers watch (curl, one SSE stream each), against a device nobody
# watches, in VIEWER_ROUNDS interleaved rounds with new devices and viewers each (2,000 pushes take well
# under a second alone, so one round is mostly noise); every viewer must have every change, in order.
viewers=${VIEWERS:-200}
pushes=${PUSHES:-2000}
viewer_rounds=${VIEWER_ROUNDS:-5}
# The viewers write 400 MB a round. On disk, the kernel's writeback of earlier rounds' files took the CPU from
# the later rounds (the machine's busy time during their pushes rose by half while the server's did not), so
# they go to memory when /dev/shm exists, and each round's are deleted once checked.
viewer_files=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d -p "$work")
on_exit rm -rf "$viewer_files"
push_rate() {  # device
    h2load -n "$pushes" -c8 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $jwt" "$url/3/device/$1" | awk '/finished in/ {print $4}'
}
for round in $(seq "$viewer_rounds"); do
    read -r unwatched _ < <(new_device "unwatched $round" 0)
    read -r watched watched_secret < <(new_device "watched $round" 0)
    folder="$viewer_files/$round"
    mkdir "$folder"
    for index in $(seq "$viewers"); do
        curl -sN -o "$folder/$index" -H "authorization: Bearer $watched_secret" \
            "$url/v1/devices/$watched/stream?languages=en&limit=1" &
    done
    for index in $(seq "$viewers"); do
        until grep -q "event: center" "$folder/$index" 2>/dev/null; do sleep 0.05; done
    done
    alone=$(push_rate "$unwatched")
    started=$(date +%s.%N)
    watched_rate=$(push_rate "$watched")
    last="id: $((pushes + 1))"  # the app's installation was change 1
    for index in $(seq "$viewers"); do
        until grep -q "^$last\$" "$folder/$index"; do sleep 0.05; done
    done
    seen=$(date +%s.%N)
    pkill -f "curl -sN -o $folder/" || true
    python3 - "$folder" "$pushes" <<'PY'
import os, sys
folder, pushes = sys.argv[1], int(sys.argv[2])
for name in os.listdir(folder):
    ids = [int(line[4:]) for line in open(os.path.join(folder, name)) if line.startswith("id: ")]
    assert ids[1:] == list(range(2, pushes + 2)), f"viewer {name} missed or reordered changes"
PY
    rm -rf "$folder"
    echo "$pushes pushes with $viewers viewers (round $round): $watched_rate req/s, against $alone req/s with none" \
        "($(python3 -c "print(round(100 * $watched_rate / $alone))")%); every viewer had every change, in order," \
        "$(python3 -c "print(round($seen - $started, 1))") s after the pushes began" | tee -a "$work/viewer-rounds"
done
awk '{ match($0, /\([0-9]+%\)/); share[NR] = substr($0, RSTART + 1, RLENGTH - 3) + 0 } END {
    for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (share[j] < share[i]) { swap = share[i]; share[i] = share[j]; share[j] = swap }
    printf "pushes with viewers, median share of the rate with none over %d rounds: %s%%\n", NR, NR % 2 ? share[(NR + 1) / 2] : (share[NR / 2] + share[NR / 2 + 1]) / 2
}' "$work/viewer-rounds"
