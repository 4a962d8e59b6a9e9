# Generated from _async_lists.py by scripts/generate_sync.py: do not edit.
"""The list calls of CacheClient.

A list holds values (str or bytes; answers are bytes) in order. A missing
list reads as empty: no values, length 0, a pop gives None.

Positions are Python's slice positions, `list_fetch(name, start, end)`
answering what `values[start:end]` would: `start` inclusive, `end`
exclusive, a negative position counts from the end (-1 is the last value),
None leaves that side open, positions past either end are clipped, and a
slice that selects nothing gives []. No step.
"""

from __future__ import annotations

from collections.abc import Iterable

from jiffy import _calls as c
from jiffy import _list as li
from jiffy._calls import Key, Ttl, Value
from jiffy._sync_base import SyncClientBase


class SyncListCalls(SyncClientBase):
    def list_push_front(
        self,
        name: Key,
        value: Value,
        *,
        truncate_back_to_size: int | None = None,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> int:
        """Put `value` first in list `name` (created if missing); the new length.

        `truncate_back_to_size` then drops values from the back down to that
        many, in the same atomic step. `ttl` (default: the config's
        default_ttl) is given to a new list, and to an existing one too
        unless `refresh_ttl=False`.
        """
        request = li.push_request(
            "front", name, value, truncate_back_to_size, self._ttl(ttl), refresh_ttl
        )
        response = self._route.call(c.LIST_PUSH_FRONT, request, self._cache_name(cache))
        return li.read_pushed(response)

    def list_push_back(
        self,
        name: Key,
        value: Value,
        *,
        truncate_front_to_size: int | None = None,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> int:
        """Put `value` last in list `name` (created if missing); the new length.

        `truncate_front_to_size` then drops values from the front down to that
        many. TTL as `list_push_front`.
        """
        request = li.push_request(
            "back", name, value, truncate_front_to_size, self._ttl(ttl), refresh_ttl
        )
        response = self._route.call(c.LIST_PUSH_BACK, request, self._cache_name(cache))
        return li.read_pushed(response)

    def list_concatenate_front(
        self,
        name: Key,
        values: Iterable[Value],
        *,
        truncate_back_to_size: int | None = None,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> int:
        """Put `values` (at least one), in their order, before the list's first value;
        the new length. Truncation and TTL as `list_push_front`."""
        request = li.concatenate_request(
            "front", name, values, truncate_back_to_size, self._ttl(ttl), refresh_ttl
        )
        response = self._route.call(c.LIST_CONCATENATE_FRONT, request, self._cache_name(cache))
        return li.read_pushed(response)

    def list_concatenate_back(
        self,
        name: Key,
        values: Iterable[Value],
        *,
        truncate_front_to_size: int | None = None,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> int:
        """Put `values` (at least one), in their order, after the list's last value;
        the new length. Truncation and TTL as `list_push_back`."""
        request = li.concatenate_request(
            "back", name, values, truncate_front_to_size, self._ttl(ttl), refresh_ttl
        )
        response = self._route.call(c.LIST_CONCATENATE_BACK, request, self._cache_name(cache))
        return li.read_pushed(response)

    def list_fetch(
        self,
        name: Key,
        start: int | None = None,
        end: int | None = None,
        *,
        cache: str | None = None,
    ) -> list[bytes]:
        """The values of list `name` that `values[start:end]` would select.

        `start` is inclusive, `end` exclusive; a negative position counts from
        the end (-1 is the last value), None leaves that side open (both
        None: the whole list), and positions past either end are clipped.
        [] when the slice selects nothing or the list is missing.
        """
        request = li.fetch_request(name, start, end)
        response = self._route.call(c.LIST_FETCH, request, self._cache_name(cache))
        return li.read_fetch(response)

    def list_pop_front(self, name: Key, *, cache: str | None = None) -> bytes | None:
        """Remove and return the first value of list `name`; None when it is missing."""
        request = li.pop_request("front", name)
        response = self._route.call(c.LIST_POP_FRONT, request, self._cache_name(cache))
        return li.read_popped(response, "front")

    def list_pop_back(self, name: Key, *, cache: str | None = None) -> bytes | None:
        """Remove and return the last value of list `name`; None when it is missing."""
        request = li.pop_request("back", name)
        response = self._route.call(c.LIST_POP_BACK, request, self._cache_name(cache))
        return li.read_popped(response, "back")

    def list_remove_value(self, name: Key, value: Value, *, cache: str | None = None) -> int:
        """Remove every value of list `name` equal to `value`; the length left
        (0 when the list is missing or this emptied it). The TTL is kept."""
        request = li.remove_request(name, value)
        response = self._route.call(c.LIST_REMOVE, request, self._cache_name(cache))
        return li.read_left(response)

    def list_retain(
        self,
        name: Key,
        start: int | None = None,
        end: int | None = None,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> int:
        """Keep only the slice [start:end] of list `name` (as `list_fetch` selects it);
        the length left. Keeping nothing removes the list (0), as does a missing
        list. Resets the TTL unless `refresh_ttl=False`."""
        request = li.retain_request(name, start, end, self._ttl(ttl), refresh_ttl)
        response = self._route.call(c.LIST_RETAIN, request, self._cache_name(cache))
        return li.read_left(response)

    def list_erase(
        self,
        name: Key,
        start: int | None = None,
        end: int | None = None,
        *,
        cache: str | None = None,
    ) -> int:
        """Remove the slice [start:end] of list `name`, as `del values[start:end]`;
        by default every value. The length left (0 when the list is missing or
        this emptied it). `start` and `end` are >= 0 (InvalidArgumentError
        otherwise). The TTL is kept.

        An empty slice (start >= end) erases nothing and sends no ListErase
        (the protocol refuses a range of 0 values): the length it returns is
        read with `list_length` instead.
        """
        request = li.erase_request(name, start, end)
        if request is None:
            return self.list_length(name, cache=cache)
        response = self._route.call(c.LIST_ERASE, request, self._cache_name(cache))
        return li.read_left(response)

    def list_length(self, name: Key, *, cache: str | None = None) -> int:
        """How many values list `name` holds; 0 when it is missing."""
        request = li.length_request(name)
        response = self._route.call(c.LIST_LENGTH, request, self._cache_name(cache))
        return c.read_length(response, li.GROUP)
