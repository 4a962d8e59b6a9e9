"""AsyncClientBase: what every group of the client's calls shares.

The client is one class made of groups (scalars in _async_client.py, one
module per collection type); each group reaches the executor, the cache
header and the default TTL through this base.
"""

from __future__ import annotations

from typing import Any

from jiffy import _calls as c
from jiffy._async_executor import AsyncExecutor
from jiffy._calls import Ttl
from jiffy._exceptions import InvalidArgumentError


class AsyncClientBase:
    default_cache: str | None
    _executor: AsyncExecutor
    _default_ttl_ms: int

    def _metadata(self, cache: str | None) -> Any:
        name = cache or self.default_cache
        if not name:
            raise _no_cache()
        return self._executor.metadata(name)

    def _cache_name(self, cache: str | None) -> str:
        """The cache a call names, for calls that carry it in the message (topics)."""
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
