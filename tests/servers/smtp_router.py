"""SMTP server for pbmchess mail tests (aiosmtpd).

Delivers each recipient like a small MTA would: a recipient whose local
part is a Dovecot user of the test set (and whose domain is the test
domain) goes into that user's Maildir, where Dovecot serves it over IMAP;
any other recipient goes into the sink Maildir DIR/sink. A Return-Path
header with the envelope sender is prepended, as at final delivery.
Recipients with the local part "reject" get a permanent 550, those with
"tempfail" a temporary 451, to test how the client classifies failures.
AUTH (PLAIN, LOGIN; also without TLS) is offered but not required: the
test users with password USER-secret pass, anything else gets 535.

Usage: smtp_router.py [--cert PEM --key PEM [--smtps-port N]] DIR PORT DOMAIN USER...
With a certificate, PORT also offers STARTTLS, and --smtps-port listens
with TLS from the first byte.
"""

import argparse
import os
import ssl
import signal
import socket
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def deliver(maildir, data):
    for sub in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(maildir, sub), exist_ok=True)
    now = time.time()
    name = "%d.M%dP%dQ%d.%s" % (
        int(now),
        int((now % 1) * 1e6),
        os.getpid(),
        deliver.counter,
        socket.gethostname(),
    )
    deliver.counter += 1
    tmp = os.path.join(maildir, "tmp", name)
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, os.path.join(maildir, "new", name))


deliver.counter = 0


class Router:
    def __init__(self, root, domain, users):
        self.root = root
        self.domain = domain.lower()
        self.users = {u.lower() for u in users}

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode("utf-8", "replace").lower() in self.users
            and auth_data.password == auth_data.login + b"-secret"
        )
        # handled=False: aiosmtpd answers (235 or 535) itself.
        return AuthResult(success=ok, handled=False)

    def maildir_for(self, rcpt):
        local, _, domain = rcpt.lower().rpartition("@")
        local = local.split("+", 1)[0]
        if domain == self.domain and local in self.users:
            return os.path.join(self.root, "mail", local, "Maildir")
        return os.path.join(self.root, "sink")

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.lower().rpartition("@")[0]
        if local == "reject":
            return "550 5.1.1 no such user"
        if local == "tempfail":
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content or envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        content = content.replace(b"\r\n", b"\n")
        header = b"Return-Path: <%s>\n" % (envelope.mail_from or "").encode()
        for rcpt in envelope.rcpt_tos:
            data = header + (b"Delivered-To: %s\n" % rcpt.encode()) + content
            deliver(self.maildir_for(rcpt), data)
        return "250 OK delivered"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--smtps-port", type=int)
    parser.add_argument("root")
    parser.add_argument("port", type=int)
    parser.add_argument("domain")
    parser.add_argument("users", nargs="*")
    args = parser.parse_args()
    router = Router(args.root, args.domain, args.users)
    extra = {}
    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
        extra["tls_context"] = context
    controllers = [
        Controller(
            router,
            hostname="127.0.0.1",
            port=args.port,
            enable_SMTPUTF8=True,
            decode_data=False,
            authenticator=router.authenticate,
            auth_require_tls=False,
            **extra,
        )
    ]
    if context is not None and args.smtps_port:
        controllers.append(
            Controller(
                router,
                hostname="127.0.0.1",
                port=args.smtps_port,
                ssl_context=context,
                server_hostname="localhost",
                enable_SMTPUTF8=True,
                decode_data=False,
                authenticator=router.authenticate,
                auth_require_tls=False,
            )
        )
    for c in controllers:
        c.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print("smtp_router listening on 127.0.0.1:%s" % args.port, flush=True)
    stop.wait()
    for c in controllers:
        c.stop()


if __name__ == "__main__":
    main()
