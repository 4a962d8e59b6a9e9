"""Dictionary calls without I/O: request builders and answer readers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jiffy import _args as a
from jiffy._calls import FieldValues, Key, found_part
from jiffy._proto import cacheclient_pb2 as cache_pb

GROUP = "dictionary"  # the oneof holding found / missing in every answer
_HIT = cache_pb.ECacheResult.Value("Hit")


def set_request(name: Key, items: FieldValues, ttl_ms: int, refresh_ttl: bool) -> Any:
    pairs = [
        cache_pb._DictionaryFieldValuePair(field=a.value(f, "field"), value=a.value(v, "value"))
        for f, v in a.pairs(items, "items")
    ]
    return cache_pb._DictionarySetRequest(
        dictionary_name=a.value(name, "name"),
        items=pairs,
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
    )


def get_request(name: Key, fields: Iterable[Key]) -> Any:
    return cache_pb._DictionaryGetRequest(
        dictionary_name=a.value(name, "name"), fields=a.byte_list(fields, "fields")
    )


def read_get(response: Any, asked: int) -> list[bytes | None]:
    """One value or None per field asked; a missing dictionary holds none."""
    found = found_part(response, GROUP)
    if found is None:
        return [None] * asked
    return [part.cache_body if part.result == _HIT else None for part in found.items]


def fetch_request(name: Key) -> Any:
    return cache_pb._DictionaryFetchRequest(dictionary_name=a.value(name, "name"))


def read_fetch(response: Any) -> dict[bytes, bytes]:
    """Fields in ascending byte order, as the TypeScript SDK answers them:
    the server answers in its hash table's order, which differs from one
    server process to the next."""
    found = found_part(response, GROUP)
    return {} if found is None else dict(sorted((p.field, p.value) for p in found.items))


def increment_request(name: Key, field: Key, amount: int, ttl_ms: int, refresh_ttl: bool) -> Any:
    return cache_pb._DictionaryIncrementRequest(
        dictionary_name=a.value(name, "name"),
        field=a.value(field, "field"),
        amount=a.integer(amount, "amount", a.INT64_MIN, a.INT64_MAX),
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
    )


def delete_request(name: Key, fields: Iterable[Key]) -> Any:
    some = cache_pb._DictionaryDeleteRequest.Some(fields=a.byte_list(fields, "fields"))
    return cache_pb._DictionaryDeleteRequest(dictionary_name=a.value(name, "name"), some=some)


def length_request(name: Key) -> Any:
    return cache_pb._DictionaryLengthRequest(dictionary_name=a.value(name, "name"))
