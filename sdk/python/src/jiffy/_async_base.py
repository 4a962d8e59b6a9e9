"""AsyncClientBase: what every group of the client's calls shares.

The client is one class made of groups (scalars in _async_client.py, one
module per collection type); each group reaches the route (which sends every
call), the cache name and the default TTL through this base.
"""

from __future__ import annotations

from jiffy import _calls as c
from jiffy._async_route import AsyncRoute
from jiffy._calls import Ttl
from jiffy._exceptions import InvalidArgumentError


class AsyncClientBase:
    default_cache: str | None
    _route: AsyncRoute
    _default_ttl_ms: int

    def _cache_name(self, cache: str | None) -> str:
        """The cache a call names: `cache`, else the client's default_cache."""
        name = cache or self.default_cache
        if not name:
            raise _no_cache()
        return name

    def _ttl(self, ttl: Ttl | None) -> int:
        return self._default_ttl_ms if ttl is None else c.ttl_ms(ttl, self._default_ttl_ms)


def _no_cache() -> InvalidArgumentError:
    return InvalidArgumentError(
        "no cache named: pass cache=... or create the client with default_cache=..."
    )
