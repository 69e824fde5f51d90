#!/usr/bin/env bash
# FCM sends, web pushes and Expo sends into SQLite beside APNs pushes into SQLite, in interleaved rounds on one machine
# (issues 42, 58 and 59): the same texts, to the same iPhone's app (by its APNs device token, its FCM registration token
# and its Expo push token) and to a web app on it (a Declarative Web Push, decrypted on each arrival), each on a fresh
# server and database, with nginx answering `return 200` to the same requests as the floor. Figures are the rate
# (h2load, 16 connections, 8 streams each, one thread) and the server's CPU per notification; an Expo send carries 100
# notifications (Expo's most), so REQUESTS/100 of them are sent and its rate counted in notifications. The medians end
# it, each as a share of nginx's rate.
#
#   HUDDLE=<release binary> Tools/bench/fcm-cpu.sh [REQUESTS] [ROUNDS]      defaults: 20000 requests, 3 rounds
#
# Needs h2load, nginx and the test set-up's Python (.venv: cryptography), as push-cpu.sh does.
set -euo pipefail
cd "$(dirname "$0")/../.."
requests=${1:-20000}
rounds=${2:-3}
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir

measure() {  # label kind (apns, fcm, webpush or expo)
    local url server_pid before after rate per=1
    rm -f "$work"/*.sqlite* "$work"/payload.json
    start_huddle "$huddle" "$work/serve.log" --database "$work/bench.sqlite" --admin-token bench
    url=$huddle_url server_pid=$huddle_pid
    bench_setup "$url" "$work" --fcm --web-push --expo
    before=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
    if [[ $2 == apns ]]; then
        rate=$(h2load -n "$requests" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
            -H "authorization: bearer $(cat "$work/jwt")" "$url/3/device/$(cat "$work/device")" | awk '/finished in/ {print $4}')
    elif [[ $2 == expo ]]; then
        per=100
        rate=$(h2load -n "$((requests / per))" -c16 -m8 -t1 -d "$work/expo_messages.json" -H "content-type: application/json" \
            "$url/--/api/v2/push/send" | awk '/finished in/ {print $4}')
        rate=$(awk -v rate="$rate" -v per="$per" 'BEGIN { printf "%.2f", rate * per }')
    elif [[ $2 == webpush ]]; then
        rate=$(h2load -n "$requests" -c16 -m8 -t1 -d "$work/web_push_body.bin" -H "content-encoding: aes128gcm" -H "ttl: 60" \
            -H "authorization: $(cat "$work/web_push_authorization")" "$url$(cat "$work/web_push_path")" | awk '/finished in/ {print $4}')
    else
        rate=$(h2load -n "$requests" -c16 -m8 -t1 -d "$work/fcm_message.json" -H "content-type: application/json" \
            -H "authorization: Bearer $(cat "$work/fcm_access_token")" "$url/v1/projects/bench-project/messages:send" | awk '/finished in/ {print $4}')
    fi
    after=$(awk '{print $14 + $15}' "/proc/$server_pid/stat")
    stop_huddle "$server_pid"
    echo "$1: $rate req/s, $(( (after - before) * 1000000 / $(getconf CLK_TCK) / (requests / per * per) )) µs CPU per request" | tee -a "$work/results"
}

measure_nginx() {
    local before after rate
    before=$(process_ticks "$nginx_pid")
    rate=$(h2load -n "$requests" -c16 -m8 -t1 -d "$work/fcm_message.json" -H "content-type: application/json" \
        -H "authorization: Bearer x" "http://127.0.0.1:$nginx_h2/v1/projects/bench-project/messages:send" | awk '/finished in/ {print $4}')
    after=$(process_ticks "$nginx_pid")
    echo "nginx return 200: $rate req/s, $(( (after - before) * 1000000 / $(getconf CLK_TCK) / requests )) µs CPU per request" | tee -a "$work/results"
}

start_nginx
for round in $(seq "$rounds"); do
    echo "== round $round"
    measure "APNs pushes into SQLite" apns
    measure "FCM sends into SQLite" fcm
    measure "web pushes into SQLite" webpush
    measure "Expo notifications (100 per send) into SQLite" expo
    measure_nginx
done
echo "== medians over $rounds rounds"
awk -F': ' '{ split($2, figures, " "); rate[$1] = rate[$1] " " figures[1]; cpu[$1] = cpu[$1] " " figures[3]; if (!($1 in seen)) { seen[$1]; order[++labels] = $1 } }
    function median(list,    values, count, i, j, swap) {
        count = split(list, values, " ")
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) { swap = values[i]; values[i] = values[j]; values[j] = swap }
        return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
    }
    END { floor = median(rate["nginx return 200"]); for (i = 1; i <= labels; i++) printf "%s: %.0f req/s (%.2f of nginx), %.0f µs CPU per request\n", order[i], median(rate[order[i]]), median(rate[order[i]]) / floor, median(cpu[order[i]]) }' "$work/results"
