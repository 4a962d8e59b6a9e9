"""Signing keys through the Python SDK: the official SDK's two signing-key
tests (`test_control.py` and `test_control_async.py`: create, list, revoke),
and the key it is handed, a JWK whose `kid` names it.

Over a Redis Cluster the client alternates front-ends call by call, so a key
made on one is listed and revoked on the other.
"""

import json
import time
from datetime import timedelta

import pytest
from momento import CacheClient, CacheClientAsync
from momento.errors import MomentoErrorCode
from momento.responses import CreateSigningKey, ListSigningKeys, RevokeSigningKey


def listed_ids(listed: object) -> list[str]:
    assert isinstance(listed, ListSigningKeys.Success), listed
    return [key.key_id for key in listed.signing_keys]


def test_create_list_revoke_signing_keys(client: CacheClient) -> None:
    created = client.create_signing_key(timedelta(minutes=30))
    assert isinstance(created, CreateSigningKey.Success), created
    assert created.key_id in listed_ids(client.list_signing_keys())

    assert isinstance(client.revoke_signing_key(created.key_id), RevokeSigningKey.Success)
    assert created.key_id not in listed_ids(client.list_signing_keys())


@pytest.mark.asyncio
async def test_create_list_revoke_signing_keys_async(async_client: CacheClientAsync) -> None:
    created = await async_client.create_signing_key(timedelta(minutes=30))
    assert isinstance(created, CreateSigningKey.Success), created
    assert created.key_id in listed_ids(await async_client.list_signing_keys())

    revoked = await async_client.revoke_signing_key(created.key_id)
    assert isinstance(revoked, RevokeSigningKey.Success)
    assert created.key_id not in listed_ids(await async_client.list_signing_keys())


def test_the_key_is_a_private_jwk_that_expires_when_asked(client: CacheClient) -> None:
    created = client.create_signing_key(timedelta(minutes=30))
    assert isinstance(created, CreateSigningKey.Success), created
    jwk = json.loads(created.key)
    assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["kid"]) == (
        "EC",
        "P-256",
        "ES256",
        created.key_id,
    )
    assert {"x", "y", "d"} <= jwk.keys()
    lifetime = created.expires_at.timestamp() - time.time()
    assert 29 * 60 < lifetime <= 30 * 60
    client.revoke_signing_key(created.key_id)


def test_revoking_an_unknown_key_is_not_found(client: CacheClient) -> None:
    revoked = client.revoke_signing_key("no-such-key")
    assert isinstance(revoked, RevokeSigningKey.Error), revoked
    assert revoked.error_code == MomentoErrorCode.NOT_FOUND_ERROR
