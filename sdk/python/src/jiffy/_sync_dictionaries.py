# Generated from _async_dictionaries.py by scripts/generate_sync.py: do not edit.
"""The dictionary calls of CacheClient.

A dictionary maps fields to values (str or bytes; answers are bytes). A
missing dictionary reads as empty: no fields, length 0.
"""

from __future__ import annotations

from collections.abc import Iterable

from jiffy import _calls as c
from jiffy import _dictionary as d
from jiffy._calls import FieldValues, Key, Ttl, Value
from jiffy._sync_base import SyncClientBase


class SyncDictionaryCalls(SyncClientBase):
    def dictionary_get_field(
        self, name: Key, field: Key, *, cache: str | None = None
    ) -> bytes | None:
        """The value of `field` in dictionary `name`, or None (also when `name` is missing)."""
        return (self.dictionary_get_fields(name, [field], cache=cache))[0]

    def dictionary_get_fields(
        self, name: Key, fields: Iterable[Key], *, cache: str | None = None
    ) -> list[bytes | None]:
        """The values of `fields` (at least one) in order, None for each absent field."""
        request = d.get_request(name, fields)
        response = self._route.call(c.DICTIONARY_GET, request, self._cache_name(cache))
        return d.read_get(response, len(request.fields))

    def dictionary_fetch(self, name: Key, *, cache: str | None = None) -> dict[bytes, bytes]:
        """Every field and value of dictionary `name`; {} when it is missing."""
        request = d.fetch_request(name)
        response = self._route.call(c.DICTIONARY_FETCH, request, self._cache_name(cache))
        return d.read_fetch(response)

    def dictionary_fetch_str(
        self, name: Key, *, cache: str | None = None, encoding: str = "utf-8"
    ) -> dict[str, str]:
        """`dictionary_fetch` with fields and values decoded as text."""
        fetched = self.dictionary_fetch(name, cache=cache)
        return {f.decode(encoding): v.decode(encoding) for f, v in fetched.items()}

    def dictionary_set_field(
        self,
        name: Key,
        field: Key,
        value: Value,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> None:
        """Set `field` to `value`, creating the dictionary.

        `ttl` (default: the config's default_ttl) is given to a new
        dictionary, and to an existing one too unless `refresh_ttl=False`.
        """
        self.dictionary_set_fields(
            name, [(field, value)], ttl=ttl, refresh_ttl=refresh_ttl, cache=cache
        )

    def dictionary_set_fields(
        self,
        name: Key,
        items: FieldValues,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> None:
        """Set each field of `items` (a mapping, or (field, value) pairs; at least one).

        A field given twice keeps the last value. TTL as `dictionary_set_field`.
        """
        request = d.set_request(name, items, self._ttl(ttl), refresh_ttl)
        self._route.call(c.DICTIONARY_SET, request, self._cache_name(cache))

    def dictionary_increment(
        self,
        name: Key,
        field: Key,
        amount: int = 1,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> int:
        """Add `amount` to the integer in `field` (absent: 0); the new value.

        WrongTypeError when the field holds something else than a base-10
        integer or the sum overflows 64 bits. TTL as `dictionary_set_field`.
        """
        request = d.increment_request(name, field, amount, self._ttl(ttl), refresh_ttl)
        response = self._route.call(c.DICTIONARY_INCREMENT, request, self._cache_name(cache))
        return int(response.value)

    def dictionary_remove_fields(
        self, name: Key, fields: Iterable[Key], *, cache: str | None = None
    ) -> None:
        """Remove `fields` (at least one; absent ones are skipped). Removing the
        last field removes the dictionary."""
        request = d.delete_request(name, fields)
        self._route.call(c.DICTIONARY_DELETE, request, self._cache_name(cache))

    def dictionary_length(self, name: Key, *, cache: str | None = None) -> int:
        """How many fields dictionary `name` holds; 0 when it is missing."""
        request = d.length_request(name)
        response = self._route.call(c.DICTIONARY_LENGTH, request, self._cache_name(cache))
        return c.read_length(response, d.GROUP)
