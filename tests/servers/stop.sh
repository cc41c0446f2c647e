#!/bin/sh
# Stops the servers tests/servers/start.sh DIR started (by their pid files).
#   tests/servers/stop.sh DIR
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 64
fi
DIR=$1
pids=
for name in smtp dovecot; do
    pidfile="$DIR/$name.pid"
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    rm -f "$pidfile"
    # Dovecot's master leaves its imap (and log) processes behind: stop
    # them too.
    children=$(ps -o pid= --ppid "$pid" 2>/dev/null || true)
    for p in $pid $children; do
        if kill "$p" 2>/dev/null; then
            pids="$pids $p"
        fi
    done
done
# Wait up to 10 s for a clean exit (Dovecot takes about 3 s), then force.
i=0
for pid in $pids; do
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -9 "$pid" 2>/dev/null || true
done
exit 0
