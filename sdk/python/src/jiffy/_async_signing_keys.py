"""The signing-key calls of AsyncCacheClient: create, list, revoke.

A signing key signs presigned URLs of the server's HTTP API
(`create_presigned_url`, docs/HTTP.md). Managing signing keys needs a token
over every cache (admin of all caches, or a super user). Listing is retried
as an idempotent call; a create or a revoke is never resent.
"""

from __future__ import annotations

from jiffy import _calls as c
from jiffy import _signing_keys as k
from jiffy._async_base import AsyncClientBase
from jiffy._calls import Ttl
from jiffy._endpoint import Endpoint
from jiffy._signing_keys import SigningKey


class AsyncSigningKeyCalls(AsyncClientBase):
    endpoint: Endpoint  # set by the client

    async def create_signing_key(self, ttl: Ttl) -> SigningKey:
        """A new signing key that signs URLs for `ttl` (rounded up to whole
        minutes, at most a year); its `key` is the private half, answered
        this once. LimitExceededError past the server's
        --max-signing-keys."""
        response = await self._route.control(c.CREATE_SIGNING_KEY, k.create_request(ttl))
        return k.read_created(response, self.endpoint.data_target)

    async def list_signing_keys(self) -> list[SigningKey]:
        """The live signing keys (without their private halves), soonest to expire first."""
        response = await self._route.control(c.LIST_SIGNING_KEYS, k.list_request())
        return k.read_list(response, self.endpoint.data_target)

    async def revoke_signing_key(self, key_id: str) -> None:
        """Revoke signing key `key_id`: its URLs are refused from now on;
        NotFoundError when there is no such live key."""
        await self._route.control(c.REVOKE_SIGNING_KEY, k.revoke_request(key_id))
