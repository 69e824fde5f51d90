#!/usr/bin/env bash
# Huddle beside a peer, over TLS (issue 45): go-apnsmock (github.com/baobabus/go-apnsmock, a Go APNs mock on
# golang.org/x/net/http2) and Huddle answering the same push, in interleaved rounds, on the same cores:
#
#   go-apnsmock                  POST /3/device/<token>: its default handler's checks, nothing stored
#   check-only route             Huddle's /bench/check/3/device/<token> (--benchmark-routes, store in memory):
#                                every check of a push, nothing stored
#   pushes into SQLite           Huddle's /3/device/<token> (--database FILE), stored
#
#   HUDDLE=<release binary> APNSMOCK=<go-apnsmock binary> Tools/bench/peer-tls.sh [REQUESTS] [ROUNDS]
#                                                                       defaults: 50000 requests, 3 rounds
#
# Every target gets the same POST from `h2load -n REQUESTS -c16 -m8 -t1` over TLS (ALPN h2): the 544-byte
# payload, apns-topic com.example.bench and `authorization: bearer <provider token>`. Both servers use one
# self-signed RSA-2048 certificate made with openssl in the work directory (h2load checks none). Prints each
# measurement (answers/s, and how many answers were not 2xx: h2load counts status classes, and a push that
# passes is 200 on both servers), then medians with each Huddle figure as a share of go-apnsmock's. Any answer
# not 2xx is reported at the end and the script exits 1: a rate of errors is no comparison. The provider
# token is made at the start and both servers refuse it an hour later (APNs' rule): a run must end within it.
#
# go-apnsmock as this script runs it: its own handler (not -allok), which decodes the provider token's header
# and claims without checking the signature (ES256 alg, an `iat` of the last hour, an `iss` not starting with
# 1), checks the headers (apns-topic present and not starting with d; apns-id, apns-priority,
# apns-collapse-id, apns-expiration well formed), the device token (some hex digit; not starting with 1, 2
# or the topic's first letter: the script uses a fixed one starting with a) and a body of 1 to 4096 bytes,
# and stores nothing. Its defaults would slow it down (-conns 5 drops 11 of h2load's 16 connections,
# -conn-delay 100ms, -resp-delay 5ms): the script gives -conns 64 -conn-delay 0 -resp-delay 0. Built with Go
# 1.19 it ignores -addr: main() passes the address on by flag.Set("httptest.serve"), a flag net/http/httptest
# only registers when the command line has -httptest.serve=, which go-apnsmock's own flags refuse; so
# httptest listens on 127.0.0.1:0, a port the kernel picks, and the script reads it from `ss -ltnp`. Its
# certificate is -cert/-key (default certs/server.crt and certs/server.key, relative to the working
# directory: the repository's, RSA-2048, expired in 2018); the script passes the one it makes for Huddle.
#
# Building go-apnsmock (no source changes needed; Debian 12's Go 1.19 and Go packages, GOPATH mode):
#
#   apt-get install -y golang-go golang-golang-x-net-dev golang-github-dgrijalva-jwt-go-dev \
#       golang-github-satori-go.uuid-dev
#   mkdir -p /tmp/go-apnsmock/gopath/src/github.com/baobabus
#   git clone https://github.com/baobabus/go-apnsmock /tmp/go-apnsmock/gopath/src/github.com/baobabus/go-apnsmock
#   cd /tmp/go-apnsmock/gopath/src/github.com/baobabus/go-apnsmock     # measured at commit 1988585 (go fmt)
#   GOPATH=/tmp/go-apnsmock/gopath:/usr/share/gocode GO111MODULE=off GOCACHE=/tmp/go-apnsmock/cache \
#       go build -o /tmp/go-apnsmock/apnsmock apnsmock.go
#
# Needs h2load (apt-get install -y nghttp2-client), openssl, ss (iproute2), curl and the test set-up's
# Python (.venv: cryptography).
set -euo pipefail
cd "$(dirname "$0")/../.."
requests=${1:-50000}
rounds=${2:-3}
apnsmock=${APNSMOCK:-}
if [[ -z $apnsmock || ! -x $apnsmock ]]; then
    echo "peer-tls.sh: set APNSMOCK to a go-apnsmock binary (its build is in this script's header)" >&2
    exit 1
fi
# shellcheck source-path=SCRIPTDIR source=lib.sh
source Tools/bench/lib.sh
make_workdir

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
tls=(--tls-certificate "$work/cert.pem" --tls-key "$work/key.pem")

# Huddle: the check-only route on a server with its store in memory, and pushes into SQLite; one signing
# key for both.
start_huddle "$huddle" "$work/check.log" --database memory --admin-token bench --benchmark-routes "${tls[@]}"
check_url=$huddle_url
mkdir -p "$work/check"
bench_setup "$check_url" "$work/check" --insecure
start_huddle "$huddle" "$work/sqlite.log" --database "$work/bench.sqlite" --admin-token bench "${tls[@]}"
sqlite_url=$huddle_url
mkdir -p "$work/sqlite"
bench_setup "$sqlite_url" "$work/sqlite" --insecure --key "$work/check/key.p8"
cp "$work/sqlite/payload.json" "$work/payload.json"

# go-apnsmock, on the port it picks itself (see above), stopped on exit.
"$apnsmock" -cert "$work/cert.pem" -key "$work/key.pem" -conns 64 -conn-delay 0 -resp-delay 0 >"$work/apnsmock.log" 2>&1 &
apnsmock_pid=$!
on_exit kill "$apnsmock_pid"
apnsmock_port=""
for _ in $(seq 100); do
    apnsmock_port=$(ss -Hltnp | awk -v pid="pid=$apnsmock_pid," 'index($0, pid) { n = split($4, address, ":"); print address[n]; exit }')
    [[ -n $apnsmock_port ]] && break
    kill -0 "$apnsmock_pid" 2>/dev/null || break
    sleep 0.1
done
if [[ -z $apnsmock_port ]]; then
    echo "peer-tls.sh: go-apnsmock is not listening; its log:" >&2
    cat "$work/apnsmock.log" >&2
    exit 1
fi
apnsmock_url="https://127.0.0.1:$apnsmock_port"
# Its notion of a valid device token (see above): hex, first digit not 1, 2 or c (the topic's first letter).
apnsmock_device=$(printf 'ab%.0s' $(seq 32))

measure() {  # label url provider-token-file
    local output rate ok total
    output=$(h2load -n "$requests" -c16 -m8 -t1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "authorization: bearer $(cat "$3")" "$2" 2>&1) || true
    rate=$(awk '/^finished in/ {print $4}' <<<"$output")
    ok=$(awk '/^status codes:/ {print $3}' <<<"$output")
    total=$(awk '/^requests:/ {print $2}' <<<"$output")
    if [[ -z $rate || -z $ok || -z $total ]]; then
        echo "peer-tls.sh: h2load against $1 ($2) gave no figures:" >&2
        echo "$output" >&2
        exit 1
    fi
    echo "$1: $rate req/s, $((total - ok)) not 2xx" | tee -a "$work/results"
    if ((round == 1)); then  # what the connections negotiated, once
        awk -F': ' '/^TLS Protocol|^Cipher|^Application protocol/ { line = line (line ? ", " : "    ") $2 } END { print line }' <<<"$output"
    fi
}

check_device=$(cat "$work/check/device")
sqlite_device=$(cat "$work/sqlite/device")
for round in $(seq "$rounds"); do
    echo "== round $round"
    measure "go-apnsmock" "$apnsmock_url/3/device/$apnsmock_device" "$work/check/jwt"
    measure "check-only route" "$check_url/bench/check/3/device/$check_device" "$work/check/jwt"
    measure "pushes into SQLite" "$sqlite_url/3/device/$sqlite_device" "$work/sqlite/jwt"
done

echo "== medians over $rounds rounds ($requests requests each; h2load -c16 -m8 -t1 over TLS)"
awk -F': ' '
    { split($2, figures, " "); rates[$1] = rates[$1] " " figures[1]; failed[$1] += figures[3]
      if (!($1 in seen)) { seen[$1]; order[++labels] = $1 } }
    function median(list,    values, count, i, j, swap) {
        count = split(list, values, " ")
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) { swap = values[i]; values[i] = values[j]; values[j] = swap }
        return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
    }
    END {
        printf "| %-20s | %12s | %20s | %20s |\n", "target", "answers/s", "share of go-apnsmock", "not 2xx (all rounds)"
        base = median(rates[order[1]])
        for (i = 1; i <= labels; i++) {
            rate = median(rates[order[i]]); total += failed[order[i]]
            printf "| %-20s | %12.0f | %20.2f | %20d |\n", order[i], rate, rate / base, failed[order[i]]
        }
        if (total > 0) { printf "peer-tls.sh: %d answers were not 2xx: these rates are not of pushes that passed\n", total; exit 1 }
    }' "$work/results"
