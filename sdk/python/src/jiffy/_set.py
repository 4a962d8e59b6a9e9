"""Set calls without I/O: request builders and answer readers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jiffy import _args as a
from jiffy._calls import Key, Value, found_part
from jiffy._proto import cacheclient_pb2 as cache_pb

GROUP = "set"  # the oneof holding found / missing in every answer
_Subtrahend = cache_pb._SetDifferenceRequest._Subtrahend


def union_request(name: Key, elements: Iterable[Value], ttl_ms: int, refresh_ttl: bool) -> Any:
    return cache_pb._SetUnionRequest(
        set_name=a.value(name, "name"),
        # No elements is allowed: the server adds nothing and creates no set.
        elements=a.byte_list(elements, "elements", allow_empty=True),
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
    )


def difference_request(name: Key, elements: Iterable[Value]) -> Any:
    removed = _Subtrahend._Set(elements=a.byte_list(elements, "elements", allow_empty=True))
    return cache_pb._SetDifferenceRequest(
        set_name=a.value(name, "name"), subtrahend=_Subtrahend(set=removed)
    )


def fetch_request(name: Key) -> Any:
    return cache_pb._SetFetchRequest(set_name=a.value(name, "name"))


def read_elements(response: Any) -> list[bytes]:
    """The elements of a SetFetch, SetPop or SetSample answer; none from a missing set."""
    found = found_part(response, GROUP)
    return [] if found is None else list(found.elements)


def contains_request(name: Key, elements: Iterable[Value]) -> Any:
    return cache_pb._SetContainsRequest(
        set_name=a.value(name, "name"),
        elements=a.byte_list(elements, "elements", allow_empty=True),
    )


def read_contains(response: Any, asked: int) -> list[bool]:
    """One bool per element asked; a missing set contains none."""
    found = found_part(response, GROUP)
    return [False] * asked if found is None else list(found.contains)


def length_request(name: Key) -> Any:
    return cache_pb._SetLengthRequest(set_name=a.value(name, "name"))


def pop_request(name: Key, count: int) -> Any:
    return cache_pb._SetPopRequest(
        set_name=a.value(name, "name"), count=a.integer(count, "count", 1, a.UINT32_MAX)
    )


def sample_request(name: Key, limit: int) -> Any:
    return cache_pb._SetSampleRequest(
        set_name=a.value(name, "name"), limit=a.integer(limit, "limit", 0, a.UINT64_MAX)
    )
