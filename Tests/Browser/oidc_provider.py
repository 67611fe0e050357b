"""A stand-in OpenID provider for the browser tests, on 127.0.0.1.

Written from OpenID Connect Core 1.0 (authorization code flow, ID token), OpenID Connect
Discovery 1.0 and RFC 7636 (PKCE, S256 only), with the `cryptography` package for its ES256
(P-256) key; the JWS is put together by hand (base64url, the DER signature turned into the
64-byte r||s that RFC 7518 §3.4 asks for).

- `GET /.well-known/openid-configuration`, `GET /jwks`: discovery and the public key (with `kid`).
- `GET /authorize`: checks the request (client, registered redirect URI, `code`, `openid`,
  S256 challenge, state, nonce) and shows a small page "Sign in as <name>" whose
  "Continue" button (`#approve`) sends the browser back to the redirect URI with `code` and
  `state`, and "Cancel" (`#deny`) with `error=access_denied`. Told to refuse, it answers
  `error=access_denied` at once, without a page.
- `POST /token`: HTTP Basic client authentication (RFC 6749 §2.3.1, form-encoded id and
  secret), the code once and within a minute, the same redirect URI, the PKCE verifier; answers
  an ID token signed ES256 with iss, sub, aud, iat, exp, nonce, preferred_username, email,
  email_verified, name and groups.
- Test controls (loopback only, as the whole server): `POST /_test/next-person` with a JSON
  person (`sub`, `preferred_username`, `email`, `name`, `groups`; unset fields get defaults),
  `POST /_test/refuse-next`, `GET /_test/state` (counts of authorizations and token requests,
  the last token error, where the last redirect back went).

Run as a program it serves until killed and writes its issuer URL to `--url-file` once it
listens; `scripts/check-browser.sh` starts it that way. `ProviderControl` is the tests' side
of the controls.
"""
import argparse
import base64
import hashlib
import html
import json
import os
import re
import secrets
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

CLIENT_ID = "campus-gateway"
CLIENT_SECRET = "browser-tests-secret"
CODE_LIFETIME = 60
ID_TOKEN_LIFETIME = 300
# RFC 7636 §4.1: 43 to 128 unreserved characters.
VERIFIER = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_json(value):
    return b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def default_person():
    return {
        "sub": "campus-0001",
        "preferred_username": "campus.student",
        "email": "campus.student@example.edu",
        "email_verified": True,
        "name": "Campus Student",
        "groups": [],
    }


class Signer:
    """An ES256 key with its key id; signs compact JWS."""

    def __init__(self, kid=None):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.kid = kid or "es256-" + secrets.token_hex(4)

    def jwk(self):
        numbers = self.key.public_key().public_numbers()
        return {
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": self.kid,
            "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big")),
        }

    def sign(self, claims):
        signing_input = b64url_json({"alg": "ES256", "typ": "JWT", "kid": self.kid}) + "." + b64url_json(claims)
        der = self.key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


class Provider:
    """The provider's state, shared by the request handlers."""

    def __init__(self, redirect_uris=(), client_id=CLIENT_ID, client_secret=CLIENT_SECRET):
        self.client_id = client_id
        self.client_secret = client_secret
        # An empty list accepts any http(s) redirect URI (the gateway's port is not known yet).
        self.redirect_uris = list(redirect_uris)
        self.signer = Signer()
        self.lock = threading.Lock()
        self.person = default_person()
        self.refuse = False
        self.pending = {}   # approval id -> the checked authorization request
        self.codes = {}     # code -> what the token endpoint needs to know
        self.authorizations = 0
        self.token_requests = 0
        self.tokens_issued = 0
        self.last_token_error = None
        self.last_redirect = None  # where /authorize or the decision last sent a browser back
        self.issuer = None  # set once the server listens

    # Controls

    def next_person(self, person):
        merged = default_person()
        merged.update({k: v for k, v in person.items() if v is not None})
        if not isinstance(merged.get("groups"), list):
            raise ValueError("groups must be a list")
        with self.lock:
            self.person = merged
            self.refuse = False
        return merged

    def refuse_next(self):
        with self.lock:
            self.refuse = True

    def state(self):
        with self.lock:
            return {
                "person": self.person, "refuseNext": self.refuse, "authorizations": self.authorizations,
                "tokenRequests": self.token_requests, "tokensIssued": self.tokens_issued,
                "lastTokenError": self.last_token_error, "openCodes": len(self.codes), "lastRedirect": self.last_redirect,
            }

    # Documents

    def discovery(self):
        issuer = self.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "jwks_uri": issuer + "/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "email", "profile"],
            "claims_supported": ["iss", "sub", "aud", "iat", "exp", "nonce", "preferred_username", "email",
                                 "email_verified", "name", "groups"],
        }

    def jwks(self):
        return {"keys": [self.signer.jwk()]}

    # Authorization endpoint

    def check_authorization(self, query):
        """The request's parameters, or an error text for a request that can't be redirected
        back (unknown client or redirect URI: Core §3.1.2.6 says not to redirect then)."""
        def one(name):
            values = query.get(name, [])
            return values[0] if len(values) == 1 else None

        if one("client_id") != self.client_id:
            return None, "unknown client_id"
        redirect = one("redirect_uri")
        if not redirect or (self.redirect_uris and redirect not in self.redirect_uris):
            return None, f"redirect_uri {redirect!r} is not registered"
        if not redirect.startswith(("http://", "https://")):
            return None, "redirect_uri must be http(s)"
        request = {"redirect_uri": redirect, "state": one("state")}
        problems = []
        if one("response_type") != "code":
            problems.append("response_type must be code")
        if "openid" not in (one("scope") or "").split():
            problems.append("scope must include openid")
        if one("code_challenge_method") != "S256" or not one("code_challenge"):
            problems.append("PKCE with S256 is required")
        if not one("nonce"):
            problems.append("nonce is required")
        if not one("state"):
            problems.append("state is required")
        request.update(scope=one("scope"), nonce=one("nonce"), challenge=one("code_challenge"), problems=problems)
        return request, None

    def approve(self, request):
        """A code for the person to sign in next; the redirect back with it."""
        code = secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = {
                "client_id": self.client_id, "redirect_uri": request["redirect_uri"], "challenge": request["challenge"],
                "nonce": request["nonce"], "person": dict(self.person), "expires": time.time() + CODE_LIFETIME,
            }
        return redirect_to(request["redirect_uri"], code=code, state=request["state"])

    # Token endpoint

    def token(self, authorization, form):
        """(status, JSON body) of a token request."""
        with self.lock:
            self.token_requests += 1
        status, body = self._token(authorization, form)
        with self.lock:
            if status == 200:
                self.tokens_issued += 1
                self.last_token_error = None
            else:
                self.last_token_error = body.get("error_description") or body.get("error")
        return status, body

    def _token(self, authorization, form):
        credentials = basic_credentials(authorization)
        if credentials != (self.client_id, self.client_secret):
            return 401, {"error": "invalid_client", "error_description": "client authentication failed"}
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        code_value = form.get("code") or ""
        with self.lock:
            code = self.codes.pop(code_value, None)   # a code works once
        if code is None:
            return 400, {"error": "invalid_grant", "error_description": "unknown or used code"}
        if code["expires"] < time.time():
            return 400, {"error": "invalid_grant", "error_description": "the code expired"}
        if form.get("redirect_uri") != code["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri differs from the authorization request"}
        verifier = form.get("code_verifier") or ""
        if not VERIFIER.match(verifier):
            return 400, {"error": "invalid_grant", "error_description": "code_verifier is malformed"}
        if b64url(hashlib.sha256(verifier.encode("ascii")).digest()) != code["challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "code_verifier does not match the challenge"}
        person = code["person"]
        now = int(time.time())
        claims = {
            "iss": self.issuer, "sub": person["sub"], "aud": self.client_id, "iat": now, "exp": now + ID_TOKEN_LIFETIME,
            "auth_time": now, "nonce": code["nonce"],
            "preferred_username": person.get("preferred_username"), "email": person.get("email"),
            "email_verified": bool(person.get("email_verified", True)), "name": person.get("name"),
            "groups": list(person.get("groups") or []),
        }
        claims = {k: v for k, v in claims.items() if v is not None}
        return 200, {
            "access_token": secrets.token_urlsafe(32), "token_type": "Bearer", "expires_in": ID_TOKEN_LIFETIME,
            "scope": "openid email profile", "id_token": self.signer.sign(claims),
        }


def basic_credentials(header):
    """(id, secret) of an HTTP Basic `Authorization` header, each form-decoded (RFC 6749 §2.3.1)."""
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    if ":" not in decoded:
        return None
    user, password = decoded.split(":", 1)
    return urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password)


def redirect_to(uri, **params):
    parts = urllib.parse.urlsplit(uri)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    query += [(k, v) for k, v in params.items() if v is not None]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campus ID · sign in</title>
<style>body{{font-family:sans-serif;max-width:28rem;margin:4rem auto}}button{{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}}</style>
</head><body>
<h1>Campus ID</h1>
<p id="who">Sign in as {name}</p>
<p class="detail">{username} · {email} · groups: {groups}</p>
<form method="post" action="/authorize/decision">
<input type="hidden" name="request" value="{request_id}">
<button type="submit" name="decision" value="approve" id="approve">Continue</button>
<button type="submit" name="decision" value="deny" id="deny">Cancel</button>
</form>
</body></html>
"""


class Handler(BaseHTTPRequestHandler):
    server_version = "OpenIDStandIn/1"
    provider: Provider = None  # set by serve()

    def log_message(self, fmt, *args):
        sys.stderr.write("oidc-provider: " + (fmt % args) + "\n")

    # Responses

    def send_json(self, status, body, cache="no-store", headers=()):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        if cache == "no-store":
            self.send_header("Pragma", "no-cache")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_html(self, status, text):
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def send_redirect(self, location):
        with self.provider.lock:
            self.provider.last_redirect = location
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def read_form(self):
        pairs = urllib.parse.parse_qs(self.read_body().decode("utf-8"), keep_blank_values=True)
        # A parameter sent twice is an error (RFC 6749 §3.1); treated as absent here.
        return {k: v[0] for k, v in pairs.items() if len(v) == 1}

    # Routes

    def do_GET(self):
        provider = self.provider
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/.well-known/openid-configuration":
            return self.send_json(200, provider.discovery(), cache="public, max-age=300")
        if url.path == "/jwks":
            return self.send_json(200, provider.jwks(), cache="public, max-age=300")
        if url.path == "/authorize":
            return self.authorize(urllib.parse.parse_qs(url.query, keep_blank_values=True))
        if url.path == "/_test/state":
            return self.send_json(200, provider.state())
        self.send_json(404, {"error": "not found"})

    def do_POST(self):
        provider = self.provider
        path = urllib.parse.urlsplit(self.path).path
        if path == "/token":
            if not (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
                return self.send_json(400, {"error": "invalid_request", "error_description": "a form body is required"})
            status, body = provider.token(self.headers.get("Authorization"), self.read_form())
            extra = [("WWW-Authenticate", 'Basic realm="campus"')] if status == 401 else []
            return self.send_json(status, body, headers=extra)
        if path == "/authorize/decision":
            form = self.read_form()
            with provider.lock:
                request = provider.pending.pop(form.get("request") or "", None)
            if request is None:
                return self.send_html(400, "<p>This sign-in page expired. Start again.</p>")
            if form.get("decision") == "approve":
                return self.send_redirect(provider.approve(request))
            return self.send_redirect(redirect_to(request["redirect_uri"], error="access_denied", state=request["state"]))
        if path == "/_test/next-person":
            try:
                person = json.loads(self.read_body() or b"{}")
                if not isinstance(person, dict):
                    raise ValueError("a JSON object is required")
                return self.send_json(200, provider.next_person(person))
            except ValueError as error:
                return self.send_json(400, {"error": str(error)})
        if path == "/_test/refuse-next":
            self.read_body()
            provider.refuse_next()
            return self.send_json(200, provider.state())
        self.send_json(404, {"error": "not found"})

    def authorize(self, query):
        provider = self.provider
        with provider.lock:
            provider.authorizations += 1
        request, fatal = provider.check_authorization(query)
        if fatal:
            return self.send_html(400, f"<h1>Bad sign-in request</h1><p id='problem'>{html.escape(fatal)}</p>")
        if request["problems"]:
            return self.send_redirect(redirect_to(
                request["redirect_uri"], error="invalid_request", error_description="; ".join(request["problems"]),
                state=request["state"]))
        with provider.lock:
            refuse, provider.refuse = provider.refuse, False
            person = dict(provider.person)
        if refuse:
            return self.send_redirect(redirect_to(request["redirect_uri"], error="access_denied", state=request["state"]))
        request_id = secrets.token_urlsafe(16)
        with provider.lock:
            provider.pending[request_id] = request
        self.send_html(200, PAGE.format(
            name=html.escape(person.get("name") or person["sub"]), username=html.escape(person.get("preferred_username") or ""),
            email=html.escape(person.get("email") or ""), groups=html.escape(", ".join(person.get("groups") or []) or "none"),
            request_id=request_id))


def serve(provider, port=0):
    """Starts the provider on 127.0.0.1 in a thread; answers the server (shutdown() stops it)."""
    handler = type("BoundHandler", (Handler,), {"provider": provider})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    provider.issuer = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, name="oidc-provider", daemon=True).start()
    return server


class ProviderControl:
    """The tests' side of the stand-in's controls."""

    def __init__(self, url):
        self.url = url.rstrip("/")

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode("utf-8") if body is not None else (b"" if method == "POST" else None)
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def next_person(self, sub, preferred_username, groups=(), name=None, email=None):
        return self._call("POST", "/_test/next-person", {
            "sub": sub, "preferred_username": preferred_username, "groups": list(groups),
            "name": name or preferred_username, "email": email or f"{preferred_username}@example.edu",
        })

    def refuse_next(self):
        return self._call("POST", "/_test/refuse-next")

    def state(self):
        return self._call("GET", "/_test/state")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--url-file", help="where to write the issuer URL once the provider listens")
    parser.add_argument("--redirect-uri", action="append", default=[], help="a registered redirect URI (repeatable)")
    parser.add_argument("--client-id", default=CLIENT_ID)
    parser.add_argument("--client-secret-file", help="a file holding the client secret (default: the built-in one)")
    args = parser.parse_args()
    secret = CLIENT_SECRET
    if args.client_secret_file:
        with open(args.client_secret_file, encoding="utf-8") as file:
            secret = file.read().strip()
    provider = Provider(redirect_uris=args.redirect_uri, client_id=args.client_id, client_secret=secret)
    server = serve(provider, args.port)
    if args.url_file:
        with open(args.url_file + ".tmp", "w", encoding="utf-8") as file:
            file.write(provider.issuer + "\n")
        os.replace(args.url_file + ".tmp", args.url_file)
    print(f"oidc-provider: issuer {provider.issuer}", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
