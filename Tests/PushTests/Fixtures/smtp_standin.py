"""A real SMTP server on 127.0.0.1 for the email tests, built on aiosmtpd.

- Listens on port 0 and writes the chosen port to --port-file once ready.
- STARTTLS with --cert/--key (required before MAIL: require_starttls); --no-starttls offers
  none, so a client that insists on TLS must send nothing.
- --user/--password: AUTH (PLAIN, LOGIN) is required, and only over TLS.
- Each accepted message is written to --mail-dir as NNNN.json (envelope, raw content, whether
  the session was TLS and authenticated), atomically (temporary file, then rename).
- If --mail-dir/reply exists when a message ends, its first line is the reply instead of 250
  (for example "451 4.3.0 Try again later" or "550 5.1.1 No such user") and nothing is kept.
- Exits when its stdin closes (the test process's lifeline).
"""
import argparse
import asyncio
import json
import os
import ssl
import sys
import threading

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--no-starttls", action="store_true")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--mail-dir", required=True)
    args = parser.parse_args()

    counter = {"n": 0}

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            reply_file = os.path.join(args.mail_dir, "reply")
            if os.path.exists(reply_file):
                with open(reply_file) as handle:
                    return handle.readline().strip()
            counter["n"] += 1
            record = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "data": envelope.original_content.decode("utf-8", "replace"),
                "tls": session.ssl is not None,
                "authenticated": bool(session.authenticated),
            }
            path = os.path.join(args.mail_dir, "%04d.json" % counter["n"])
            with open(path + ".partial", "w") as handle:
                json.dump(record, handle)
            os.rename(path + ".partial", path)
            return "250 2.0.0 OK"

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == (args.user or "").encode() \
            and auth_data.password == (args.password or "").encode()
        return AuthResult(success=ok)

    context = None
    if not args.no_starttls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)

    def factory():
        return SMTP(
            Handler(), hostname="standin.test", tls_context=context, require_starttls=context is not None,
            authenticator=authenticator if args.user else None, auth_required=bool(args.user), auth_require_tls=True,
            decode_data=False,
        )

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(loop.create_server(factory, host="127.0.0.1", port=0))
    port = server.sockets[0].getsockname()[1]
    with open(args.port_file + ".partial", "w") as handle:
        handle.write("%d\n" % port)
    os.rename(args.port_file + ".partial", args.port_file)

    def lifeline():
        sys.stdin.read()
        loop.call_soon_threadsafe(loop.stop)

    threading.Thread(target=lifeline, daemon=True).start()
    loop.run_forever()


if __name__ == "__main__":
    main()
