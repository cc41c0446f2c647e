#!/bin/sh
# Starts Dovecot (IMAP) and an aiosmtpd SMTP server on loopback high ports
# for the pbmchess mail tests. Installs nothing: needs the Debian packages
# dovecot-imapd and python3-aiosmtpd.
#
#   tests/servers/start.sh DIR [IMAP_PORT [SMTP_PORT]]
#
# Everything lives under DIR (created if missing): dovecot.conf, logs,
# pid files, the users' Maildirs DIR/mail/<user>/Maildir, and the sink
# Maildir DIR/sink for mail to any other address. Ports default to free
# ones picked at start. As root, both servers run as nobody (Dovecot's
# login processes refuse root); otherwise as the calling user.
#
# Test accounts (domain test.local, password = name + "-secret"):
#   pbm@test.local    the chess server's mailbox (IMAP user pbm)
#   alice@test.local  a player's mailbox (IMAP user alice)
# SMTP (no auth, no TLS) delivers to those two Maildirs, and everything
# else to DIR/sink.
#
# With openssl there, TLS too: a self-signed certificate (a P-256 key) for
# localhost in DIR/cert.pem, STARTTLS on both plain ports, and two more
# ports with TLS from the first byte (imaps, smtps).
#
# Prints, and writes to DIR/env, shell assignments:
#   PBMCHESS_TEST_DIR=... PBMCHESS_TEST_IMAP_PORT=... PBMCHESS_TEST_SMTP_PORT=...
#   and with TLS: PBMCHESS_TEST_IMAPS_PORT=... PBMCHESS_TEST_SMTPS_PORT=...
#   PBMCHESS_TEST_CA_FILE=DIR/cert.pem
# Exit status 77 when a package is missing (the tests then skip).
# PBMCHESS_TEST_DOVECOT=/path/to/dovecot overrides where Dovecot is.
# Stop with tests/servers/stop.sh DIR.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 DIR [IMAP_PORT [SMTP_PORT]]" >&2
    exit 64
fi
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
DIR=$(cd "$1" && pwd)

if [ -n "${PBMCHESS_TEST_DOVECOT:-}" ]; then
    DOVECOT=$PBMCHESS_TEST_DOVECOT
else
    DOVECOT=$(command -v dovecot 2>/dev/null || true)
    if [ -z "$DOVECOT" ] && [ -x /usr/sbin/dovecot ]; then DOVECOT=/usr/sbin/dovecot; fi
fi
if [ -z "$DOVECOT" ] || [ ! -x "$DOVECOT" ]; then
    echo "missing: dovecot (apt-get install dovecot-imapd)" >&2
    exit 77
fi
PY=
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import aiosmtpd' >/dev/null 2>&1; then
        PY=$(command -v "$candidate")
        break
    fi
done
if [ -z "$PY" ]; then
    echo "missing: python3 with aiosmtpd (apt-get install python3-aiosmtpd)" >&2
    exit 77
fi

free_port() {
    "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
IMAP_PORT=${2:-$(free_port)}
SMTP_PORT=${3:-$(free_port)}
while [ "$SMTP_PORT" = "$IMAP_PORT" ]; do SMTP_PORT=$(free_port); done
IMAPS_PORT=
SMTPS_PORT=
if command -v openssl >/dev/null 2>&1; then
    IMAPS_PORT=$(free_port)
    SMTPS_PORT=$(free_port)
fi

if [ "$(id -u)" = 0 ]; then
    RUN_USER=nobody
    RUN_GROUP=$(id -gn nobody)
    AS="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
else
    RUN_USER=$(id -un)
    RUN_GROUP=$(id -gn)
    AS=
fi

for d in run state sink/new sink/cur sink/tmp; do mkdir -p "$DIR/$d"; done
for u in pbm alice; do
    for sub in new cur tmp; do mkdir -p "$DIR/mail/$u/Maildir/$sub"; done
done
{
    echo "pbm:{PLAIN}pbm-secret"
    echo "alice:{PLAIN}alice-secret"
} > "$DIR/users"
sed -e "s|@DIR@|$DIR|g" -e "s|@PORT@|$IMAP_PORT|g" \
    -e "s|@USER@|$RUN_USER|g" -e "s|@GROUP@|$RUN_GROUP|g" \
    "$HERE/dovecot.conf.in" > "$DIR/dovecot.conf"
cp "$HERE/smtp_router.py" "$DIR/smtp_router.py"
TLS_ARGS=
if [ -n "$IMAPS_PORT" ]; then
    # A self-signed certificate for localhost / 127.0.0.1: clients trust it
    # through tls_ca_file = DIR/cert.pem. Its key is P-256: quick to make
    # at every start, where an RSA-2048 one takes about 0.2 s.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
        -keyout "$DIR/key.pem" -out "$DIR/cert.pem" >/dev/null 2>&1
    cat > "$DIR/ssl.conf" <<SSLEOF
ssl = yes
ssl_cert = <$DIR/cert.pem
ssl_key = <$DIR/key.pem
service imap-login {
  inet_listener imaps {
    address = 127.0.0.1
    port = $IMAPS_PORT
  }
}
SSLEOF
    TLS_ARGS="--cert $DIR/cert.pem --key $DIR/key.pem --smtps-port $SMTPS_PORT"
fi
if [ "$(id -u)" = 0 ]; then
    chown -R "$RUN_USER:$RUN_GROUP" "$DIR"
fi

# One launcher per server, so tests/servers/service.sh can stop and start
# either alone on the same ports (outage tests). Each starts its server in
# the background and writes its pid file; the ports file lists what it
# listens on.
mkdir -p "$DIR/ctl"
cat > "$DIR/ctl/dovecot.start" <<CTLEOF
#!/bin/sh
$AS "$DOVECOT" -F -c "$DIR/dovecot.conf" >>"$DIR/dovecot.out" 2>&1 &
echo \$! > "$DIR/dovecot.pid"
CTLEOF
cat > "$DIR/ctl/smtp.start" <<CTLEOF
#!/bin/sh
$AS env PYTHONDONTWRITEBYTECODE=1 "$PY" "$DIR/smtp_router.py" $TLS_ARGS "$DIR" "$SMTP_PORT" test.local pbm alice >>"$DIR/smtp.out" 2>&1 &
echo \$! > "$DIR/smtp.pid"
CTLEOF
echo "$IMAP_PORT $IMAPS_PORT" > "$DIR/ctl/dovecot.ports"
echo "$SMTP_PORT $SMTPS_PORT" > "$DIR/ctl/smtp.ports"
echo "$PY" > "$DIR/ctl/python"
sh "$DIR/ctl/dovecot.start"
sh "$DIR/ctl/smtp.start"

# Wait (at most 15 s) until both ports accept connections.
# shellcheck disable=SC2086
if ! "$PY" - "$IMAP_PORT" "$SMTP_PORT" $IMAPS_PORT $SMTPS_PORT <<'PYEOF'
import socket, sys, time
deadline = time.time() + 15
for port in map(int, sys.argv[1:]):
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.time() > deadline:
                sys.exit("port %d did not open" % port)
            time.sleep(0.1)
PYEOF
then
    echo "servers did not start; logs:" >&2
    tail -n 20 "$DIR/dovecot.out" "$DIR/dovecot.log" "$DIR/smtp.out" >&2 2>/dev/null || true
    "$HERE/stop.sh" "$DIR" || true
    exit 1
fi

{
    echo "PBMCHESS_TEST_DIR=$DIR"
    echo "PBMCHESS_TEST_IMAP_PORT=$IMAP_PORT"
    echo "PBMCHESS_TEST_SMTP_PORT=$SMTP_PORT"
    if [ -n "$IMAPS_PORT" ]; then
        echo "PBMCHESS_TEST_IMAPS_PORT=$IMAPS_PORT"
        echo "PBMCHESS_TEST_SMTPS_PORT=$SMTPS_PORT"
        echo "PBMCHESS_TEST_CA_FILE=$DIR/cert.pem"
    fi
} > "$DIR/env"
cat "$DIR/env"
