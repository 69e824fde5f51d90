# shellcheck shell=bash
# Shared start-up for the benchmark scripts (sourced, not run): one way to make the work directory, start
# `huddle serve`, wait for it and clean up, so that no script polls forever or leaves a server behind.
#
#   cd "$(dirname "$0")/../.." && source Tools/bench/lib.sh
#   make_workdir                               # sets $work, a new directory removed on exit
#   start_huddle [-p PORT] BINARY LOG ARGS...  # sets $huddle_url (https with --tls-certificate), $huddle_port, $huddle_pid
#   stop_huddle [PID...]                       # stops those servers (default: every one started)
#   bench_setup URL WORK [OPTIONS...]          # runs bench_setup.py with the test set-up's Python
#   wrk_push_script FOLDER                     # writes FOLDER/post.lua: wrk posting bench_setup's push
#   on_exit COMMAND [ARGS...]                  # a clean-up of the script's own, run on exit
#   start_nginx                                # the floor: sets $nginx_h2, $nginx_h1 (ports) and $nginx_pid
#
# $huddle is the binary under test: $HUDDLE, else the release build. Sourcing installs the EXIT trap: a
# script must not set one of its own (it would replace this one), but register its clean-up with on_exit.
# Call start_huddle in the script's shell, never in $(…): a subshell's records of its servers are lost.
# The servers are then the script's children: a bare `wait` would wait for them too; wait for given pids.

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck disable=SC2034  # the scripts use it
huddle=${HUDDLE:-$bench_root/.build-release/release/huddle}
# bench_setup.py needs `cryptography`, which the test set-up's .venv has.
bench_python=${PYTHON:-$( [[ -x $bench_root/.venv/bin/python ]] && echo "$bench_root/.venv/bin/python" || echo python3 )}
# Seconds a server may take to answer /health; a build under load starts slowly, but never this slowly.
huddle_start_timeout=${HUDDLE_START_TIMEOUT:-30}

work=""
huddle_pids=()
bench_cleanups=()

make_workdir() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/huddle-bench.XXXXXX")
}

on_exit() {  # command [args...]: the arguments as they are now, quoted for the eval on exit
    bench_cleanups+=("$(printf '%q ' "$@")")
}

# Servers first (they hold the files and the databases the clean-ups remove), then the script's own
# clean-ups, newest first (their output is not the benchmark's), then the work directory. Nothing here may
# stop the rest from running.
bench_cleanup() {
    stop_huddle
    local index
    for ((index = ${#bench_cleanups[@]} - 1; index >= 0; index--)); do
        eval "${bench_cleanups[$index]}" >/dev/null || true
    done
    if [[ -n $work ]]; then rm -rf "$work"; fi
}
trap bench_cleanup EXIT

port_in_use() {  # port
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port nothing listens on (another process may still take it before the server does: start_huddle retries).
free_port() {
    local port
    while true; do
        port=$((20000 + RANDOM % 40000))
        if ! port_in_use "$port"; then echo "$port"; return; fi
    done
}

# Starts BINARY serve --port PORT ARGS... in the background, its output appended to LOG, and returns once
# GET /health answers 200. A server that exits first is started again on another port (its port was taken
# between free_port and the bind), up to three times, unless -p gave the port. On no answer within
# $huddle_start_timeout seconds, prints the end of LOG and exits the script: a benchmark against a server
# that is not there would only measure errors. A given port must be free: else whatever listens there
# would answer /health while the new server fails to bind. With --tls-certificate among ARGS, $huddle_url is
# https (its certificate not checked: a benchmark's is self-signed).
start_huddle() {  # [-p port] binary log args...
    local port="" attempt started scheme=http
    if [[ $1 == -p ]]; then port=$2; shift 2; fi
    local binary=$1 log=$2; shift 2
    if [[ " $* " == *" --tls-certificate "* ]]; then scheme=https; fi
    if [[ ! -x $binary ]]; then
        echo "start_huddle: $binary is not an executable (set HUDDLE to a release build)" >&2
        exit 1
    fi
    if [[ -n $port ]] && port_in_use "$port"; then
        echo "start_huddle: port $port is in use" >&2
        exit 1
    fi
    for attempt in 1 2 3; do
        huddle_port=${port:-$(free_port)}
        huddle_url="$scheme://127.0.0.1:$huddle_port"
        LOG_LEVEL=${LOG_LEVEL:-error} "$binary" serve --port "$huddle_port" "$@" >>"$log" 2>&1 &
        huddle_pid=$!
        huddle_pids+=("$huddle_pid")
        started=$SECONDS
        while ((SECONDS - started < huddle_start_timeout)); do
            if [[ $(curl -sk -o /dev/null -w '%{http_code}' --max-time 2 "$huddle_url/health") == 200 ]]; then
                return 0
            fi
            kill -0 "$huddle_pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$huddle_pid" 2>/dev/null || [[ -n $port ]]; then break; fi
        stop_huddle "$huddle_pid"
        echo "start_huddle: huddle serve on port $huddle_port exited (attempt $attempt)" >&2
    done
    if kill -0 "$huddle_pid" 2>/dev/null; then
        echo "start_huddle: $binary serve did not answer $huddle_url/health with 200 within" \
            "$huddle_start_timeout s; the end of $log:" >&2
    else
        echo "start_huddle: $binary serve exited before answering $huddle_url/health; the end of $log:" >&2
    fi
    tail -n 20 "$log" >&2
    exit 1
}

# Stops PIDs (default: every server start_huddle started) and forgets them. SIGTERM asks for a graceful
# shutdown, which waits for open connections (a live stream's client may never close its own): after 5 s,
# SIGKILL.
stop_huddle() {  # [pid...]
    local pids=("$@") pid tries kept=()
    if ((${#pids[@]} == 0)); then pids=("${huddle_pids[@]}"); fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for ((tries = 0; tries < 50; tries++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    for pid in "${huddle_pids[@]}"; do
        [[ " ${pids[*]} " == *" $pid "* ]] || kept+=("$pid")
    done
    huddle_pids=("${kept[@]}")
}

# Sets up a running server for pushes (signing key, devices, provider token, payload.json in WORK): see
# bench_setup.py for what it writes and its options.
bench_setup() {  # url work [options...]
    "$bench_python" "$bench_root/Tools/bench/bench_setup.py" "$@"
}

# The builds a round measures, in its order: "this", and with BEFORE set "before" too, this build first on odd rounds
# and the build before first on even ones, so that neither always runs first (in the other's wake, or early in a drift
# of the machine's speed: with the new build always first, floor.sh's wrk SQLite row read 6% slower in each of five
# rounds, where the two builds measured in alternating order read 7% faster).
builds_in_order() {  # round
    if [[ -z ${BEFORE:-} ]]; then
        echo this
    elif (( $1 % 2 )); then
        echo this before
    else
        echo before this
    fi
}

# A wrk script that posts the push bench_setup left in FOLDER (its payload.json, with its provider token and
# topic), written to FOLDER/post.lua.
wrk_push_script() {  # folder
    cat >"$1/post.lua" <<LUA
wrk.method = "POST"
wrk.body = io.open("$1/payload.json"):read("*a")
wrk.headers["apns-topic"] = "com.example.bench"
wrk.headers["authorization"] = "bearer $(cat "$1/jwt")"
wrk.headers["content-type"] = "application/json"
LUA
}

# The HTTP floor: nginx answering `return 200` from a prefix of its own (never as the system's service), two
# workers, h2c with prior knowledge on $nginx_h2 and HTTP/1.1 on $nginx_h1 (../shared/spec/tooling.md). Needs
# nginx (apt-get install -y nginx-light). Stopped on exit.
start_nginx() {
    nginx_h2=$(free_port)
    nginx_h1=$(free_port)
    mkdir -p "$work/nginx/logs"
    cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 2;
user root;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events {}
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx/body;
    server { listen 127.0.0.1:$nginx_h2 http2; location / { return 200 '{}'; } }
    server { listen 127.0.0.1:$nginx_h1; location / { return 200 '{}'; } }
}
CONF
    nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
    nginx_pid=$!
    on_exit kill "$nginx_pid"
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$nginx_h1/" && break; sleep 0.1; done
}

# The CPU time (clock ticks, user and system) of a process and its children that run (nginx's workers).
process_ticks() {  # pid
    local pid
    for pid in "$1" $(pgrep -P "$1" || true); do awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || true; done |
        awk '{ total += $1 } END { print total + 0 }'
}
