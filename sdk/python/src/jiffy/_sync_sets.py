# Generated from _async_sets.py by scripts/generate_sync.py: do not edit.
"""The set calls of CacheClient.

A set holds distinct elements (str or bytes; answers are bytes), unordered.
A missing set reads as empty: no elements, length 0, contains False.
"""

from __future__ import annotations

from collections.abc import Iterable

from jiffy import _calls as c
from jiffy import _set as s
from jiffy._calls import Key, Ttl, Value
from jiffy._sync_base import SyncClientBase


class SyncSetCalls(SyncClientBase):
    def set_add_elements(
        self,
        name: Key,
        elements: Iterable[Value],
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> None:
        """Add `elements` to set `name`, creating it; ones already there count once.

        `ttl` (default: the config's default_ttl) is given to a new set, and
        to an existing one too unless `refresh_ttl=False`. No elements
        changes nothing.
        """
        request = s.union_request(name, elements, self._ttl(ttl), refresh_ttl)
        self._route.call(c.SET_UNION, request, self._cache_name(cache))

    def set_remove_elements(
        self, name: Key, elements: Iterable[Value], *, cache: str | None = None
    ) -> None:
        """Remove `elements` from set `name` (absent ones are ignored); the TTL is kept."""
        request = s.difference_request(name, elements)
        self._route.call(c.SET_DIFFERENCE, request, self._cache_name(cache))

    def set_fetch(self, name: Key, *, cache: str | None = None) -> set[bytes]:
        """Every element of set `name`; an empty set when it is missing."""
        request = s.fetch_request(name)
        response = self._route.call(c.SET_FETCH, request, self._cache_name(cache))
        return set(s.read_elements(response))

    def set_contains_element(self, name: Key, element: Value, *, cache: str | None = None) -> bool:
        """Whether set `name` holds `element`."""
        return (self.set_contains_elements(name, [element], cache=cache))[0]

    def set_contains_elements(
        self, name: Key, elements: Iterable[Value], *, cache: str | None = None
    ) -> list[bool]:
        """For each of `elements`, in order, whether set `name` holds it."""
        request = s.contains_request(name, elements)
        response = self._route.call(c.SET_CONTAINS, request, self._cache_name(cache))
        return s.read_contains(response, len(request.elements))

    def set_length(self, name: Key, *, cache: str | None = None) -> int:
        """How many elements set `name` holds; 0 when it is missing."""
        request = s.length_request(name)
        response = self._route.call(c.SET_LENGTH, request, self._cache_name(cache))
        return c.read_length(response, s.GROUP)

    def set_pop(self, name: Key, count: int = 1, *, cache: str | None = None) -> list[bytes]:
        """Remove and return up to `count` (>= 1) elements chosen at random; [] when
        the set is missing. Taking the last element removes the set."""
        request = s.pop_request(name, count)
        response = self._route.call(c.SET_POP, request, self._cache_name(cache))
        return s.read_elements(response)

    def set_sample(self, name: Key, limit: int, *, cache: str | None = None) -> list[bytes]:
        """Up to `limit` (>= 0) distinct elements chosen at random, left in the set;
        [] when it is missing."""
        request = s.sample_request(name, limit)
        response = self._route.call(c.SET_SAMPLE, request, self._cache_name(cache))
        return s.read_elements(response)
