"""Sorted set calls without I/O: request builders and answer readers.

Elements come back as (value, score) pairs in the order asked: by score,
ties by value bytes; "descending" is that order reversed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from jiffy import _args as a
from jiffy._calls import Key, Value, found_part
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import cacheclient_pb2 as cache_pb
from jiffy._proto import common_pb2 as common_pb

GROUP = "sorted_set"  # the oneof holding found / missing in most answers
_HIT = cache_pb.ECacheResult.Value("Hit")
_UNBOUNDED = common_pb._Unbounded()
_Fetch = cache_pb._SortedSetFetchRequest
_Union = cache_pb._SortedSetUnionStoreRequest

# The proto's enum names (Fetch and GetRank each have an Order enum, both
# ASCENDING / DESCENDING); messages take the name as a str.
ORDERS = {"ascending": "ASCENDING", "descending": "DESCENDING"}
AGGREGATES = {"sum": "SUM", "min": "MIN", "max": "MAX"}

# Each key type on its own, as _calls.FieldValues explains.
Scores = Mapping[str, float] | Mapping[bytes, float] | Iterable[tuple[Value, float]]
Weights = Mapping[str, float] | Mapping[bytes, float] | Iterable[tuple[Key, float]]


def put_request(name: Key, elements: Scores, ttl_ms: int, refresh_ttl: bool) -> Any:
    return cache_pb._SortedSetPutRequest(
        set_name=a.value(name, "name"),
        elements=[
            cache_pb._SortedSetElement(value=a.value(v, "value"), score=a.number(s, "score"))
            for v, s in a.pairs(elements, "elements")
        ],
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
    )


def fetch_by_rank_request(name: Key, start: int | None, end: int | None, order: str) -> Any | None:
    """SortedSetFetch of ranks [start:end]; None when the slice is surely empty.

    Python's slices answer [] for a start at or after the end; the server
    refuses such a range instead (when both have one sign), so it is not sent.
    """
    set_name = a.value(name, "name")
    first, last = a.index(start, "start"), a.index(end, "end")
    direction = a.choice(order, "order", ORDERS)
    if first is not None and last is not None and (first < 0) == (last < 0) and first >= last:
        return None
    by_index = _Fetch._ByIndex(
        **({"unbounded_start": _UNBOUNDED} if first is None else {"inclusive_start_index": first}),
        **({"unbounded_end": _UNBOUNDED} if last is None else {"exclusive_end_index": last}),
    )
    return _Fetch(set_name=set_name, order=direction, with_scores=True, by_index=by_index)


def _bounds(min_score: float | None, max_score: float | None) -> tuple[float | None, float | None]:
    low = None if min_score is None else a.number(min_score, "min_score", allow_infinite=True)
    high = None if max_score is None else a.number(max_score, "max_score", allow_infinite=True)
    if low is not None and high is not None and low > high:
        raise InvalidArgumentError(f"min_score {min_score!r} is above max_score {max_score!r}")
    return low, high


def fetch_by_score_request(
    name: Key,
    min_score: float | None,
    max_score: float | None,
    exclusive_min: bool,
    exclusive_max: bool,
    order: str,
    offset: int,
    count: int | None,
) -> Any:
    low, high = _bounds(min_score, max_score)
    score = _Fetch._ByScore._Score
    by_score = _Fetch._ByScore(
        **(
            {"unbounded_min": _UNBOUNDED}
            if low is None
            else {"min_score": score(score=low, exclusive=a.flag(exclusive_min, "exclusive_min"))}
        ),
        **(
            {"unbounded_max": _UNBOUNDED}
            if high is None
            else {"max_score": score(score=high, exclusive=a.flag(exclusive_max, "exclusive_max"))}
        ),
        offset=a.integer(offset, "offset", 0, a.UINT32_MAX),
        # A negative count asks for all; 0 would be refused.
        count=-1 if count is None else a.integer(count, "count", 1, a.INT32_MAX),
    )
    return _Fetch(
        set_name=a.value(name, "name"),
        order=a.choice(order, "order", ORDERS),
        with_scores=True,
        by_score=by_score,
    )


def read_fetch(response: Any) -> list[tuple[bytes, float]]:
    found = found_part(response, GROUP)
    if found is None:
        return []
    return [(element.value, element.score) for element in found.values_with_scores.elements]


def get_score_request(name: Key, values: Iterable[Value]) -> Any:
    return cache_pb._SortedSetGetScoreRequest(
        set_name=a.value(name, "name"), values=a.byte_list(values, "values", allow_empty=True)
    )


def read_scores(response: Any, asked: int) -> list[float | None]:
    """One score or None per value asked; a missing set holds none."""
    found = found_part(response, GROUP)
    if found is None:
        return [None] * asked
    return [part.score if part.result == _HIT else None for part in found.elements]


def get_rank_request(name: Key, value: Value, order: str) -> Any:
    return cache_pb._SortedSetGetRankRequest(
        set_name=a.value(name, "name"),
        value=a.value(value, "value"),
        order=a.choice(order, "order", ORDERS),
    )


def read_rank(response: Any) -> int | None:
    if response.WhichOneof("rank") != "element_rank":
        return None
    part = response.element_rank
    return int(part.rank) if part.result == _HIT else None


def increment_request(
    name: Key, value: Value, amount: float, ttl_ms: int, refresh_ttl: bool
) -> Any:
    return cache_pb._SortedSetIncrementRequest(
        set_name=a.value(name, "name"),
        value=a.value(value, "value"),
        amount=a.number(amount, "amount"),
        ttl_milliseconds=ttl_ms,
        refresh_ttl=a.flag(refresh_ttl, "refresh_ttl"),
    )


def remove_request(name: Key, values: Iterable[Value]) -> Any:
    values_given = a.byte_list(values, "values", allow_empty=True)
    some = cache_pb._SortedSetRemoveRequest._Some(values=values_given)
    return cache_pb._SortedSetRemoveRequest(set_name=a.value(name, "name"), some=some)


def length_request(name: Key) -> Any:
    return cache_pb._SortedSetLengthRequest(set_name=a.value(name, "name"))


def length_by_score_request(
    name: Key,
    min_score: float | None,
    max_score: float | None,
    exclusive_min: bool,
    exclusive_max: bool,
) -> Any:
    low, high = _bounds(min_score, max_score)
    low_kind = "exclusive_min" if a.flag(exclusive_min, "exclusive_min") else "inclusive_min"
    high_kind = "exclusive_max" if a.flag(exclusive_max, "exclusive_max") else "inclusive_max"
    return cache_pb._SortedSetLengthByScoreRequest(
        set_name=a.value(name, "name"),
        **({"unbounded_min": _UNBOUNDED} if low is None else {low_kind: low}),
        **({"unbounded_max": _UNBOUNDED} if high is None else {high_kind: high}),
    )


def union_store_request(destination: Key, sources: Weights, aggregate: str, ttl_ms: int) -> Any:
    weighted = []
    for source, weight in a.pairs(sources, "sources"):
        checked = a.number(weight, "weight")
        if abs(checked) > a.FLOAT32_MAX:
            raise InvalidArgumentError(f"weight {weight!r} does not fit the proto's 32-bit float")
        weighted.append(_Union._Source(set_name=a.value(source, "source name"), weight=checked))
    return _Union(
        set_name=a.value(destination, "destination"),
        sources=weighted,
        aggregate=a.choice(aggregate, "aggregate", AGGREGATES),
        ttl_milliseconds=ttl_ms,
    )


def read_union_length(response: Any) -> int:
    return int(response.length)
