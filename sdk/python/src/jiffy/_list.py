"""List calls without I/O: request builders and answer readers.

Positions follow Python's slices (start inclusive, end exclusive, negatives
from the end, None open), which is also how the server reads ListFetch and
ListRetain; only ListErase, whose ranges count from the front, is
translated here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jiffy import _args as a
from jiffy._calls import Key, Value, found_part
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import cacheclient_pb2 as cache_pb
from jiffy._proto import common_pb2 as common_pb

GROUP = "list"  # the oneof holding found / missing in every answer
_UNBOUNDED = common_pb._Unbounded()

# Each end's messages, and the field that truncates the other end.
_PUSH = {
    "front": (cache_pb._ListPushFrontRequest, "truncate_back_to_size"),
    "back": (cache_pb._ListPushBackRequest, "truncate_front_to_size"),
}
_CONCATENATE = {
    "front": (cache_pb._ListConcatenateFrontRequest, "truncate_back_to_size"),
    "back": (cache_pb._ListConcatenateBackRequest, "truncate_front_to_size"),
}


def _truncate(size: int | None, what: str) -> int:
    # 0 on the wire means "do not truncate", so the caller's 0 would be
    # ambiguous: None says that instead, and a size starts at 1.
    return 0 if size is None else a.integer(size, what, 1, a.UINT32_MAX)


def push_request(
    end: str, name: Key, value: Value, truncate: int | None, ttl_ms: int, refresh_ttl: bool
) -> Any:
    message, truncate_field = _PUSH[end]
    return message(
        list_name=a.value(name, "name"),
        value=a.value(value, "value"),
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
        **{truncate_field: _truncate(truncate, truncate_field)},
    )


def concatenate_request(
    end: str,
    name: Key,
    values: Iterable[Value],
    truncate: int | None,
    ttl_ms: int,
    refresh_ttl: bool,
) -> Any:
    message, truncate_field = _CONCATENATE[end]
    return message(
        list_name=a.value(name, "name"),
        values=a.byte_list(values, "values"),
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
        **{truncate_field: _truncate(truncate, truncate_field)},
    )


def read_pushed(response: Any) -> int:
    return int(response.list_length)


def _slice(start: int | None, end: int | None) -> dict[str, Any]:
    """The start_index / end_index oneofs shared by ListFetch and ListRetain."""
    first, last = a.index(start, "start"), a.index(end, "end")
    return {
        **({"unbounded_start": _UNBOUNDED} if first is None else {"inclusive_start": first}),
        **({"unbounded_end": _UNBOUNDED} if last is None else {"exclusive_end": last}),
    }


def fetch_request(name: Key, start: int | None, end: int | None) -> Any:
    return cache_pb._ListFetchRequest(list_name=a.value(name, "name"), **_slice(start, end))


def read_fetch(response: Any) -> list[bytes]:
    found = found_part(response, GROUP)
    return [] if found is None else list(found.values)


def retain_request(
    name: Key, start: int | None, end: int | None, ttl_ms: int, refresh_ttl: bool
) -> Any:
    return cache_pb._ListRetainRequest(
        list_name=a.value(name, "name"),
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
        **_slice(start, end),
    )


def pop_request(end: str, name: Key) -> Any:
    message = cache_pb._ListPopFrontRequest if end == "front" else cache_pb._ListPopBackRequest
    return message(list_name=a.value(name, "name"))


def read_popped(response: Any, end: str) -> bytes | None:
    """The value taken (the answer's `front` or `back`), or None from a missing list."""
    found = found_part(response, GROUP)
    return None if found is None else bytes(getattr(found, end))


def remove_request(name: Key, value: Value) -> Any:
    return cache_pb._ListRemoveRequest(
        list_name=a.value(name, "name"), all_elements_with_value=a.value(value, "value")
    )


def erase_request(name: Key, start: int | None, end: int | None) -> Any | None:
    """ListErase of the slice [start:end]; None when the slice is empty (no erase to send).

    The proto's ranges are (begin, count) from the front, so only positions
    >= 0 can be sent without first reading the length, which a concurrent
    write could change before the erase.
    """
    list_name = a.value(name, "name")
    first, last = a.index(start, "start"), a.index(end, "end")
    if (first is not None and first < 0) or (last is not None and last < 0):
        raise InvalidArgumentError(
            "list_erase takes start and end >= 0 (positions from the front);"
            f" got start={start!r}, end={end!r}. From the back, use list_retain"
        )
    if first is None and last is None:
        return cache_pb._ListEraseRequest(
            list_name=list_name, all=cache_pb._ListEraseRequest._All()
        )
    begin = first or 0
    # An open end is every position from `begin` on; a range may reach past the end.
    count = a.UINT32_MAX if last is None else last - begin
    if count <= 0:
        return None
    ranges = cache_pb._ListEraseRequest._ListRanges(
        ranges=[cache_pb._ListRange(begin_index=begin, count=count)]
    )
    return cache_pb._ListEraseRequest(list_name=list_name, some=ranges)


def read_left(response: Any) -> int:
    """The length a ListRemove, ListRetain or ListErase left; 0 when the list
    is missing or the call emptied it (the server then answers `missing`)."""
    found = found_part(response, GROUP)
    return 0 if found is None else int(found.list_length)


def length_request(name: Key) -> Any:
    return cache_pb._ListLengthRequest(list_name=a.value(name, "name"))
