"""Signing keys and presigned URLs: the URL's token checked against the
key's public half (as the server checks it), the URL's shape and the
arguments refused; then against a real server with its HTTP API, a key
created, listed and revoked, and the URLs it signs served until then."""

from __future__ import annotations

import base64
import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

import jiffy
from jiffy import InvalidArgumentError, SigningKey, create_presigned_url
from jiffy._signing_keys import create_request
from tests.conftest import Server


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_jwk(kid: str = "k1") -> str:
    """A P-256 JWK as CreateSigningKey answers it."""
    private = ec.generate_private_key(ec.SECP256R1())
    numbers = private.private_numbers()
    return json.dumps(
        {
            "kty": "EC", "crv": "P-256", "alg": "ES256", "kid": kid,
            "x": b64(numbers.public_numbers.x.to_bytes(32, "big")),
            "y": b64(numbers.public_numbers.y.to_bytes(32, "big")),
            "d": b64(numbers.private_value.to_bytes(32, "big")),
        }
    )  # fmt: skip


def verified_claims(jwk: str, token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The token's header and claims, once its ES256 signature verifies
    against the key's public half."""
    key = json.loads(jwk)
    public = ec.EllipticCurvePublicNumbers(
        int.from_bytes(unb64(key["x"]), "big"),
        int.from_bytes(unb64(key["y"]), "big"),
        ec.SECP256R1(),
    ).public_key()
    head, body, signature = token.split(".")
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    return json.loads(unb64(head)), json.loads(unb64(body))


def test_a_get_url_carries_a_token_the_key_signed_for_that_get() -> None:
    jwk = new_jwk()
    before = int(time.time())
    url = create_presigned_url(jwk, "https://h:9005/", "my cache", "a/b", "get", 60)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "h:9005",
        "/cache/get/my%20cache/a%2Fb",
    )
    (token,) = parse_qs(parts.query)["token"]
    header, claims = verified_claims(jwk, token)
    assert header == {"alg": "ES256", "typ": "JWT", "kid": "k1"}
    assert before + 60 <= claims.pop("exp") <= int(time.time()) + 60
    assert claims == {"cache": "my cache", "key": "a/b", "method": ["get"]}


def test_a_set_url_carries_its_ttl_signed_and_in_milliseconds() -> None:
    jwk = new_jwk()
    key = SigningKey("k1", "e", jiffy._tokens._moment(0), jwk)
    url = create_presigned_url(key, "http://h", "c", "k", "set", timedelta(minutes=5), ttl=30)
    query = parse_qs(urlsplit(url).query)
    assert query["ttl_milliseconds"] == ["30000"]
    _, claims = verified_claims(jwk, query["token"][0])
    assert (claims["method"], claims["ttl"]) == (["set"], 30)


def test_another_keys_signature_does_not_verify() -> None:
    url = create_presigned_url(new_jwk(), "http://h", "c", "k", "get", 60)
    (token,) = parse_qs(urlsplit(url).query)["token"]
    with pytest.raises(InvalidSignature):
        verified_claims(new_jwk(), token)


@pytest.mark.parametrize(
    "call",
    [
        lambda jwk: create_presigned_url(jwk, "http://h", "c", "k", "set", 60),
        lambda jwk: create_presigned_url(jwk, "http://h", "c", "k", "set", 60, ttl=1.5),
        lambda jwk: create_presigned_url(jwk, "http://h", "c", "k", "delete", 60),  # type: ignore[arg-type]
        lambda jwk: create_presigned_url(jwk, "http://h", "c", "k", "get", 0),
        lambda jwk: create_presigned_url("{}", "http://h", "c", "k", "get", 60),
        lambda jwk: create_presigned_url("not json", "http://h", "c", "k", "get", 60),
        lambda jwk: create_presigned_url(
            SigningKey("k1", "e", jiffy._tokens._moment(0)), "http://h", "c", "k", "get", 60
        ),
    ],
)
def test_bad_arguments_are_invalid(call: Callable[[str], str]) -> None:
    with pytest.raises(InvalidArgumentError):
        call(new_jwk())


def test_a_keys_ttl_is_sent_in_whole_minutes_rounded_up() -> None:
    assert create_request(timedelta(minutes=30)).ttl_minutes == 30
    assert create_request(61).ttl_minutes == 2
    for bad in (0, timedelta(days=366)):
        with pytest.raises(InvalidArgumentError):
            create_request(bad)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetch(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status), bytes(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


async def test_keys_sign_urls_the_server_serves_until_revoked(
    start_server: Callable[..., Server], cache_name: str
) -> None:
    port = free_port()
    server = start_server("--http-listen", f"127.0.0.1:{port}")
    base = f"http://127.0.0.1:{port}"
    async with jiffy.AsyncCacheClient(server.endpoint, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        key = await client.create_signing_key(timedelta(minutes=10))
        assert key.key is not None
        assert key.endpoint == server.address
        assert 9 * 60 < key.expires_at.timestamp() - time.time() <= 10 * 60
        listed = await client.list_signing_keys()
        assert [(k.key_id, k.expires_at, k.key) for k in listed] == [
            (key.key_id, key.expires_at, None)
        ]

        put = create_presigned_url(key, base, cache_name, "k", "set", 60, ttl=300)
        assert fetch(put, "PUT", b"presigned") == (204, b"")
        assert await client.get("k") == b"presigned"
        get = create_presigned_url(key, base, cache_name, "k", "get", 60)
        assert fetch(get) == (200, b"presigned")
        # Signed for "k", not for the key its path names instead.
        assert fetch(get.replace("/k?", "/other?"))[0] == 403
        # A key nobody set: a miss.
        assert fetch(create_presigned_url(key, base, cache_name, "other", "get", 60))[0] == 404

        await client.revoke_signing_key(key.key_id)
        assert await client.list_signing_keys() == []
        assert fetch(get)[0] == 401
        with pytest.raises(jiffy.NotFoundError):
            await client.revoke_signing_key(key.key_id)


def test_the_sync_client_manages_keys_too(server: Server) -> None:
    with jiffy.CacheClient(server.endpoint) as client:
        key = client.create_signing_key(60)
        assert key.key_id in [listed.key_id for listed in client.list_signing_keys()]
        client.revoke_signing_key(key.key_id)
        assert key.key_id not in [listed.key_id for listed in client.list_signing_keys()]
