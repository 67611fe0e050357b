"""A loopback receiver for PushTests: a Web Push service and a webhook endpoint on 127.0.0.1.

    push_receiver.py RECORD_FILE

Environment: WEBPUSH_UA_PRIVATE and WEBPUSH_AUTH (the subscription's keys, base64url),
WEBHOOK_SECRET (whsec_...). Listens on 127.0.0.1 on a free port and prints `PORT <n>`.

POST /webpush/<status>[/<retry-after>]: decrypts the body with http_ece and verifies the VAPID
token (webpush_check.py); POST /webhook/<status>[/<retry-after>]: verifies the Standard Webhooks
signature with hmac. Each request is appended to RECORD_FILE as one JSON line before the answer
(<status>, with `Retry-After: <retry-after>`, or an HTTP date 90 s ahead for `date`). Exits when
the test process that started it goes away, or after 120 seconds.
"""
import base64
import email.utils
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webpush_check  # noqa: E402

RECORD_FILE = sys.argv[1]


def verify_webhook(headers, body, now):
    """(valid, error): the Standard Webhooks check, written from the specification."""
    secret = os.environ.get("WEBHOOK_SECRET", "")
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    msg_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not msg_id or not timestamp.isdigit():
        return False, "missing webhook-id or webhook-timestamp"
    if abs(now - int(timestamp)) > 300:
        return False, "timestamp out of tolerance"
    expected = base64.b64encode(hmac.new(key, b"%s.%s.%s" % (msg_id.encode(), timestamp.encode(), body), hashlib.sha256).digest())
    for entry in headers.get("webhook-signature", "").split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode(), expected):
            return True, None
    return False, "no v1 signature matches"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        parts = [part for part in self.path.split("/") if part]
        record = {"path": self.path, "headers": headers, "method": self.command}
        now = int(time.time())
        if parts and parts[0] == "webpush":
            try:
                plaintext = webpush_check.decrypt(body, os.environ["WEBPUSH_UA_PRIVATE"], os.environ["WEBPUSH_AUTH"])
                record["plaintext"] = plaintext.decode()
            except Exception as error:
                record["decrypt_error"] = "%s: %s" % (type(error).__name__, error)
            audience = "http://127.0.0.1:%d" % self.server.server_port
            record["vapid_problems"], record["claims"] = webpush_check.check_vapid(headers.get("authorization"), audience, now)
        elif parts and parts[0] == "webhook":
            record["body"] = body.decode("utf-8", "replace")
            record["signature_valid"], record["signature_error"] = verify_webhook(headers, body, now)
        with open(RECORD_FILE, "a") as file:
            file.write(json.dumps(record) + "\n")
            file.flush()
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 201
        self.send_response(status)
        if len(parts) > 2:
            retry = email.utils.formatdate(time.time() + 90, usegmt=True) if parts[2] == "date" else parts[2]
            self.send_header("Retry-After", retry)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()

    def log_message(self, format, *args):
        pass


def exit_when_orphaned(parent):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=exit_when_orphaned, args=(os.getppid(),), daemon=True).start()
    threading.Timer(120, lambda: os._exit(0)).start()
    print("PORT %d" % server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
