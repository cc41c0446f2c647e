#!/bin/sh
# Stops or starts one of the servers tests/servers/start.sh DIR started,
# alone and on the same ports, for outage tests:
#
#   tests/servers/service.sh DIR stop|start dovecot|smtp
#
# stop: SIGTERM to the server by its pid file and to its child processes
# (Dovecot's imap processes would serve open sessions on), then waits (at
# most 10 s each, then SIGKILL) until they are gone and the ports refuse
# connections.
# start: runs the launcher start.sh wrote (DIR/ctl/NAME.start) and waits
# (at most 15 s) until its ports accept connections. Starting a server
# that runs already, or stopping one that is stopped, does nothing.
# tests/servers/stop.sh DIR still stops whatever runs.
set -eu

if [ $# -ne 3 ]; then
    echo "usage: $0 DIR stop|start dovecot|smtp" >&2
    exit 64
fi
DIR=$1
ACTION=$2
NAME=$3
case "$NAME" in
    dovecot | smtp) ;;
    *)
        echo "$0: unknown server $NAME (dovecot or smtp)" >&2
        exit 64
        ;;
esac
if [ ! -f "$DIR/ctl/$NAME.start" ]; then
    echo "$0: $DIR was not set up by tests/servers/start.sh" >&2
    exit 1
fi
PY=$(cat "$DIR/ctl/python")
PORTS=$(cat "$DIR/ctl/$NAME.ports")
PIDFILE="$DIR/$NAME.pid"

running() {
    [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

# wait_ports open|closed SECONDS PORT...
wait_ports() {
    # shellcheck disable=SC2086
    "$PY" - "$@" <<'PYEOF'
import socket, sys, time
want, limit, ports = sys.argv[1], float(sys.argv[2]), [int(p) for p in sys.argv[3:]]
deadline = time.time() + limit
for port in ports:
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            is_open = True
        except OSError:
            is_open = False
        if is_open == (want == "open"):
            break
        if time.time() > deadline:
            sys.exit("port %d is not %s" % (port, want))
        time.sleep(0.05)
PYEOF
}

case "$ACTION" in
    stop)
        if running; then
            pid=$(cat "$PIDFILE")
            # Dovecot's master leaves its imap processes serving the
            # sessions they have: an outage ends those too, including any
            # the master starts before it has shut down.
            killed=
            kill_children() {
                for c in $(ps -o pid= --ppid "$pid" 2>/dev/null || true); do
                    if kill "$c" 2>/dev/null; then killed="$killed $c"; fi
                done
            }
            kill_children
            kill "$pid" 2>/dev/null || true
            i=0
            while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
                kill_children
                sleep 0.05
                i=$((i + 1))
            done
            kill -9 "$pid" 2>/dev/null || true
            for c in $killed; do
                i=0
                while kill -0 "$c" 2>/dev/null && [ $i -lt 100 ]; do
                    sleep 0.05
                    i=$((i + 1))
                done
                kill -9 "$c" 2>/dev/null || true
            done
        fi
        rm -f "$PIDFILE"
        # shellcheck disable=SC2086
        wait_ports closed 10 $PORTS
        ;;
    start)
        if ! running; then
            sh "$DIR/ctl/$NAME.start"
        fi
        # shellcheck disable=SC2086
        if ! wait_ports open 15 $PORTS; then
            echo "$NAME did not start; log:" >&2
            tail -n 20 "$DIR/$NAME.out" >&2 2>/dev/null || true
            exit 1
        fi
        ;;
    *)
        echo "usage: $0 DIR stop|start dovecot|smtp" >&2
        exit 64
        ;;
esac
