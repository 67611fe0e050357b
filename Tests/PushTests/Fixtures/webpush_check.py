"""Independent checks of what the gateway's Web Push channel sends, for PushTests.

http_ece (its own RFC 8188/8291 implementation) decrypts the body with the subscription's
private key, and `cryptography` verifies the VAPID token (RFC 8292) with the public key the
request carries. Used as a module by push_receiver.py and as a command:

    webpush_check.py < request.json   ->   result JSON on stdout

request: {"body": b64url, "ua_private": b64url scalar, "auth": b64url, "authorization": str,
          "audience": str, "now": unix seconds}
result:  {"plaintext": str | null, "decrypt_error": str | null, "vapid_problems": [str],
          "claims": {...} | null}
"""
import base64
import json
import sys

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decrypt(body, ua_private, auth):
    """The plaintext of an aes128gcm body, decrypted the way a browser does."""
    scalar = int.from_bytes(b64url_decode(ua_private), "big")
    key = ec.derive_private_key(scalar, ec.SECP256R1())
    return http_ece.decrypt(body, private_key=key, auth_secret=b64url_decode(auth), version="aes128gcm")


def check_vapid(authorization, audience, now):
    """(problems, claims) for an `Authorization: vapid t=<jwt>, k=<key>` header value."""
    problems = []
    if not authorization or not authorization.startswith("vapid "):
        return ["the Authorization scheme is not vapid"], None
    params = {}
    for part in authorization[len("vapid "):].split(","):
        name, _, value = part.strip().partition("=")
        params[name] = value
    token, key = params.get("t", ""), params.get("k", "")
    pieces = token.split(".")
    if len(pieces) != 3:
        return ["the token is not a JWT"], None
    header = json.loads(b64url_decode(pieces[0]))
    claims = json.loads(b64url_decode(pieces[1]))
    if header != {"typ": "JWT", "alg": "ES256"}:
        problems.append("unexpected JWT header %r" % header)
    signature = b64url_decode(pieces[2])
    if len(signature) != 64:
        problems.append("the signature is %d bytes, not 64" % len(signature))
    else:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(key))
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            public.verify(der, (pieces[0] + "." + pieces[1]).encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            problems.append("the signature does not verify with k")
    if claims.get("aud") != audience:
        problems.append("aud is %r, expected %r" % (claims.get("aud"), audience))
    exp = claims.get("exp")
    if not isinstance(exp, int) or not (now < exp <= now + 24 * 3600):
        problems.append("exp %r is not within 24 hours after %r" % (exp, now))
    sub = claims.get("sub", "")
    if not (sub.startswith("mailto:") or sub.startswith("https:")):
        problems.append("sub %r is neither mailto: nor https:" % sub)
    return problems, claims


def main():
    request = json.load(sys.stdin)
    result = {"plaintext": None, "decrypt_error": None, "vapid_problems": [], "claims": None}
    try:
        result["plaintext"] = decrypt(b64url_decode(request["body"]), request["ua_private"], request["auth"]).decode()
    except Exception as error:  # reported, not raised: the test prints it
        result["decrypt_error"] = "%s: %s" % (type(error).__name__, error)
    if request.get("authorization") is not None:
        result["vapid_problems"], result["claims"] = check_vapid(request["authorization"], request["audience"], request["now"])
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
