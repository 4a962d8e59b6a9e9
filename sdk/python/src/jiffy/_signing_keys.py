"""Signing keys and presigned URLs without I/O: the SigningKey record,
request builders, and `create_presigned_url`.

A signing key (CreateSigningKey) is a P-256 key pair the server makes; the
client is handed its private half once, as a JSON Web Key, and signs URLs
with it that the server's HTTP API serves with no other token: a get or a
set of one key of one cache, until an expiry (docs/HTTP.md, docs/AUTH.md).
The URL's `token` is a JWT (ES256, the key's id as `kid`) whose claims are
`exp`, `cache`, `key`, `method` and, for a set, `ttl` in seconds.

Signing needs the `cryptography` package (`pip install jiffy[presign]`):
the standard library has no ECDSA.
"""

from __future__ import annotations

import base64
import json
import math
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import quote

from jiffy._calls import Ttl
from jiffy._config import seconds
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import controlclient_pb2 as control_pb
from jiffy._tokens import _moment

# The server's bound on a signing key's life: a year, in minutes.
MAX_TTL_MINUTES = 365 * 24 * 60


@dataclass(frozen=True, slots=True)
class SigningKey:
    """Signing key `key_id`, which signs URLs until `expires_at`. `key` is
    its JWK, private half included: answered by `create_signing_key` only
    (None when listed), to pass to `create_presigned_url`. `endpoint` is
    the server the client spoke to."""

    key_id: str
    endpoint: str
    expires_at: datetime
    key: str | None = None


def create_request(ttl: Ttl) -> control_pb._CreateSigningKeyRequest:
    """`ttl` in whole minutes, as the protocol carries it, rounded up."""
    minutes = math.ceil(seconds(ttl) / 60)
    if not 1 <= minutes <= MAX_TTL_MINUTES:
        raise InvalidArgumentError(f"a signing key's ttl is from 1 minute to a year, not {ttl!r}")
    return control_pb._CreateSigningKeyRequest(ttl_minutes=minutes)


def revoke_request(key_id: str) -> control_pb._RevokeSigningKeyRequest:
    return control_pb._RevokeSigningKeyRequest(key_id=key_id)


def list_request() -> control_pb._ListSigningKeysRequest:
    return control_pb._ListSigningKeysRequest()


def read_created(response: Any, endpoint: str) -> SigningKey:
    """The key's id is its JWK's `kid` (empty if the answer has no JWK)."""
    key = str(response.key)
    try:
        key_id = str(json.loads(key)["kid"])
    except (ValueError, KeyError, TypeError):
        key_id = ""
    return SigningKey(key_id, endpoint, _moment(response.expires_at), key)


def read_list(response: Any, endpoint: str) -> list[SigningKey]:
    return [
        SigningKey(listed.key_id, endpoint, _moment(listed.expires_at))
        for listed in response.signing_key
    ]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(jwk: dict[str, Any], message: bytes) -> bytes:
    """ES256: the raw r || s of an ECDSA P-256 SHA-256 signature."""
    try:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InvalidArgumentError(
            "create_presigned_url needs the cryptography package: pip install 'jiffy[presign]'"
        ) from exc
    private = ec.derive_private_key(int.from_bytes(_unb64(jwk["d"]), "big"), ec.SECP256R1())
    r, s = decode_dss_signature(private.sign(message, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def _jwk_of(signing_key: SigningKey | str) -> dict[str, Any]:
    text = signing_key.key if isinstance(signing_key, SigningKey) else signing_key
    if not text:
        raise InvalidArgumentError(
            "this signing key has no private half: only create_signing_key answers it"
        )
    try:
        jwk = json.loads(text)
    except ValueError as exc:
        raise InvalidArgumentError("the signing key is not a JWK (JSON)") from exc
    if not isinstance(jwk, dict) or jwk.get("kty") != "EC" or not {"kid", "d"} <= jwk.keys():
        raise InvalidArgumentError("the signing key is not a P-256 JWK with `kid` and `d`")
    return jwk


def create_presigned_url(
    signing_key: SigningKey | str,
    base_url: str,
    cache: str,
    key: str,
    operation: Literal["get", "set"],
    expires_in: Ttl,
    *,
    ttl: Ttl | None = None,
) -> str:
    """A URL of the server's HTTP API (`base_url`, e.g. "https://host:9005")
    that gets, or sets to the request's body, `key` of `cache`, with no
    other token, for `expires_in` from now. A set needs `ttl`, the item's
    time to live, in whole seconds. `signing_key` is what
    create_signing_key answered (or its `key`)."""
    jwk = _jwk_of(signing_key)
    if operation not in ("get", "set"):
        raise InvalidArgumentError(f"operation is 'get' or 'set', not {operation!r}")
    lifetime = seconds(expires_in)
    if lifetime <= 0:
        raise InvalidArgumentError(f"expires_in must be positive, not {expires_in!r}")
    claims: dict[str, Any] = {
        "exp": int(time.time() + lifetime),
        "cache": cache,
        "key": key,
        "method": [operation],
    }
    if operation == "set":
        if ttl is None or seconds(ttl) != int(seconds(ttl)) or seconds(ttl) < 1:
            raise InvalidArgumentError(f"a set's URL needs a ttl of whole seconds, not {ttl!r}")
        claims["ttl"] = int(seconds(ttl))
    header = {"alg": "ES256", "typ": "JWT", "kid": jwk["kid"]}
    signed = ".".join(
        _b64(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)
    )
    token = f"{signed}.{_b64(_sign(jwk, signed.encode()))}"
    path = f"{base_url.rstrip('/')}/cache/{operation}/{quote(cache, safe='')}/{quote(key, safe='')}"
    if operation == "set":
        return f"{path}?token={token}&ttl_milliseconds={claims['ttl'] * 1000}"
    return f"{path}?token={token}"
