#!/usr/bin/env python3
"""An APNs stand-in for PushTests: HTTP/2 over TLS (h2 + asyncio) on 127.0.0.1.

It checks each request the way APNs does (ES256 provider token verified with the public key
given on the command line, the apns-* headers, the payload) and answers by device-token prefix:

  410...  -> 410 {"reason":"Unregistered","timestamp":<--unregistered-at ms>}
  badd... -> 400 {"reason":"BadDeviceToken"}
  4290... -> 429 {"reason":"TooManyRequests"}
  5030... -> 503 {"reason":"ServiceUnavailable"}
  others  -> 200 with apns-id (the request's, or a new UUID)

While the file --answer-file names exists, its first line (`<status> <reason>`, e.g.
`503 ServiceUnavailable`) is the answer to every request that passes APNs' checks instead: a
test makes deliveries fail, then removes the file and they succeed.

Every request is appended to --log as one JSON line: connection id, stream id, path, headers
(the authorization header is replaced by the token's SHA-256 prefix and decoded claims),
the parsed payload, the status and reason. The bound port is written to --port-file.

--max-streams is advertised per connection and enforced as APNs does (REFUSED_STREAM for a
stream over it); --workers forks processes that serve the same socket (for the benchmark).
The stand-in exits when its stdin closes, so it never outlives the test that started it.
"""
import argparse, asyncio, base64, functools, hashlib, json, os, re, signal, socket, ssl, sys, threading, time, uuid

import h2.config, h2.connection, h2.errors, h2.events, h2.exceptions, h2.settings
import hpack.hpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

# The stand-in is pure Python, so the benchmark measures it as much as the channel. Two
# shortcuts that change nothing on the wire: a Huffman-coded header value seen before (a path,
# a topic, a length) is decoded once, and hpack's per-header debug logging is skipped.
hpack.hpack.decode_huffman = functools.lru_cache(maxsize=65536)(hpack.hpack.decode_huffman)
hpack.hpack.log = type("NoLog", (), {"debug": staticmethod(lambda *args, **kwargs: None)})()

PUSH_TYPES = {"alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets"}
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
HEX_RE = re.compile(r"^[0-9a-fA-F]+$")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StandIn:
    def __init__(self, args):
        self.args = args
        self.public_key = serialization.load_der_public_key(base64.b64decode(args.public_key))
        self.verified = {}  # authorization header -> check_jwt's answer
        self.log = open(args.log, "a", buffering=1)
        self.connections = 0
        self.worker = 0
        self.refused = 0
        # Header validation is the test's job here (answer() checks what APNs checks); h2's
        # own checks would only cost time in the benchmark.
        self.h2_config = h2.config.H2Configuration(
            client_side=False, header_encoding="utf-8", validate_inbound_headers=False,
            normalize_inbound_headers=False, validate_outbound_headers=False, normalize_outbound_headers=False)

    def check_jwt(self, authorization):
        """(reason or None, claims, short SHA-256 of the header); APNs too verifies a token once."""
        if authorization in self.verified:
            return self.verified[authorization]
        if not authorization or not authorization.lower().startswith("bearer "):
            result = ("MissingProviderToken", None)
        else:
            result = self._verify(authorization[7:].strip())
        result += (hashlib.sha256((authorization or "").encode()).hexdigest()[:16],)
        self.verified[authorization] = result
        return result

    def _verify(self, token):
        try:
            head, body, sig = token.split(".")
            header, claims, raw = json.loads(b64url_decode(head)), json.loads(b64url_decode(body)), b64url_decode(sig)
        except Exception:
            return "InvalidProviderToken", None
        if header != {"alg": "ES256", "kid": self.args.key_id} or set(claims) != {"iss", "iat"}:
            return "InvalidProviderToken", claims
        if claims["iss"] != self.args.team_id or not isinstance(claims["iat"], int) or len(raw) != 64:
            return "InvalidProviderToken", claims
        try:
            der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
            self.public_key.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "InvalidProviderToken", claims
        if abs(time.time() - claims["iat"]) > 3600:
            return "ExpiredProviderToken", claims
        return None, claims

    def answer(self, headers, body):
        """(status, reason or None, the parsed payload or None) for one request."""
        status, reason = self.check(headers, body)
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if status == 200:
            if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
                status, reason = 400, "PayloadEmpty" if not body else "BadPayload"
            else:
                status, reason = self.forced_answer() or self.by_token_prefix(headers[":path"][len("/3/device/"):])
        return status, reason, payload

    def forced_answer(self):
        """(status, reason) from --answer-file while it exists, else None."""
        if not self.args.answer_file:
            return None
        try:
            with open(self.args.answer_file) as handle:
                status, _, reason = handle.readline().strip().partition(" ")
            return int(status), reason or None
        except (OSError, ValueError):
            return None

    def check(self, headers, body):
        """What APNs checks before it looks at the payload: (status, reason); 200 when all is well."""
        reason = self.check_jwt(headers.get("authorization"))[0]
        if reason:
            return 403, reason
        path = headers.get(":path", "")
        if headers.get(":method") != "POST":
            return 405, "MethodNotAllowed"
        if not path.startswith("/3/device/"):
            return 404, "BadPath"
        token = path[len("/3/device/"):]
        if not token or not HEX_RE.match(token):
            return 400, "BadDeviceToken"
        topic = headers.get("apns-topic")
        if not topic:
            return 400, "MissingTopic"
        if self.args.topic and topic != self.args.topic:
            return 400, "DeviceTokenNotForTopic"
        if headers.get("apns-push-type") not in PUSH_TYPES:
            return 400, "InvalidPushType"
        if headers.get("apns-priority") not in ("5", "10"):
            return 400, "BadPriority"
        if "apns-expiration" in headers and not headers["apns-expiration"].isdigit():
            return 400, "BadExpirationDate"
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            return 400, "BadCollapseId"
        if "apns-id" in headers and not UUID_RE.match(headers["apns-id"]):
            return 400, "BadMessageId"
        if len(body) > 4096:
            return 413, "PayloadTooLarge"
        return 200, None

    @staticmethod
    def by_token_prefix(token):
        if token.startswith("410"):
            return 410, "Unregistered"
        if token.startswith("badd"):
            return 400, "BadDeviceToken"
        if token.startswith("4290"):
            return 429, "TooManyRequests"
        if token.startswith("5030"):
            return 503, "ServiceUnavailable"
        return 200, None

    def respond(self, conn, conn_id, stream_id, headers, body):
        body = bytes(body)
        status, reason, payload = self.answer(headers, body)
        _, claims, jwt_hash = self.check_jwt(headers.get("authorization"))
        apns_id = headers.get("apns-id") or str(uuid.uuid4())
        out = [(":status", str(status)), ("apns-id", apns_id)]
        data = b""
        if reason:
            error = {"reason": reason}
            if status == 410:
                error["timestamp"] = self.args.unregistered_at
            data = json.dumps(error).encode()
            out += [("content-type", "application/json"), ("content-length", str(len(data)))]
        if status == 429 and self.args.retry_after is not None:
            out.append(("retry-after", str(self.args.retry_after)))
        recorded = {k: v for k, v in headers.items() if k != "authorization"}
        record = {
            "conn": conn_id, "stream": stream_id, "path": headers.get(":path"), "headers": recorded,
            "jwt_sha256": jwt_hash, "claims": claims,
            "payload": payload, "size": len(body), "status": status, "reason": reason,
        }
        self.log.write(json.dumps(record) + "\n")
        conn.send_headers(stream_id, out, end_stream=not data)
        if data:
            conn.send_data(stream_id, data, end_stream=True)

    async def serve(self, reader, writer):
        self.connections += 1
        conn_id = self.worker * 1_000_000 + self.connections
        conn = h2.connection.H2Connection(config=self.h2_config)
        conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.args.max_streams})
        conn.initiate_connection()
        writer.write(conn.data_to_send())
        # --max-streams is advertised, and enforced below as APNs does: a stream over the
        # limit (sent before the client saw our SETTINGS) is refused alone (REFUSED_STREAM,
        # which clients retry), where h2 would end the whole connection.
        conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 2**31 - 1})
        streams = {}
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        if len(streams) >= self.args.max_streams:
                            self.refused += 1
                            conn.reset_stream(event.stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
                            continue
                        streams[event.stream_id] = (dict(event.headers), bytearray())
                    elif isinstance(event, h2.events.DataReceived):
                        if event.stream_id in streams:
                            streams[event.stream_id][1].extend(event.data)
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        if event.stream_id in streams:
                            headers, body = streams.pop(event.stream_id)
                            self.respond(conn, conn_id, event.stream_id, headers, body)
                    elif isinstance(event, h2.events.StreamReset):
                        streams.pop(event.stream_id, None)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        break
                pending = conn.data_to_send()
                if pending:
                    writer.write(pending)
                    await writer.drain()
        except (ConnectionError, ssl.SSLError) as error:
            print(f"connection {conn_id}: {error!r}", file=sys.stderr, flush=True)
        except h2.exceptions.ProtocolError as error:
            print(f"connection {conn_id}: HTTP/2 protocol error {error!r}", file=sys.stderr, flush=True)
            writer.write(conn.data_to_send())
        finally:
            writer.close()


def exit_with_parent():
    """The test keeps our stdin open; at EOF (the test ended, even by a crash) exit.
    Also unblocks SIGTERM and SIGINT, which a parent's threads may pass on blocked."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--public-key", required=True, help="base64 DER SubjectPublicKeyInfo of the .p8 key")
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--topic", default=None, help="the only topic accepted (others: DeviceTokenNotForTopic)")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--unregistered-at", type=int, default=int(time.time() * 1000))
    parser.add_argument("--retry-after", type=int, default=None)
    parser.add_argument("--max-streams", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the listening socket")
    parser.add_argument("--answer-file", default=None, help="while this file exists, its `<status> <reason>` answers every valid request")
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    worker = 0
    for index in range(1, args.workers):
        if os.fork() == 0:  # children serve the same socket, before any event loop exists
            worker = index
            break
    exit_with_parent()
    standin = StandIn(args)
    standin.worker = worker
    if worker == 0:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(listener.getsockname()[1]))
        os.replace(args.port_file + ".tmp", args.port_file)
    asyncio.run(serve(standin, listener, args))


async def serve(standin, listener, args):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])
    server = await asyncio.start_server(standin.serve, sock=listener, ssl=context)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
