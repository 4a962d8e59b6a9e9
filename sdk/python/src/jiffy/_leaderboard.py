"""Leaderboard calls without I/O: request builders and answer readers.

A leaderboard ranks ids by score. An id is an int from 0 to 2**32 - 1 (the
protocol carries ids as uint32), held once; its score is a finite float.
Rank 0 is the lowest score in "ascending" order and the highest in
"descending"; equal scores are ordered by id. Answers are LeaderboardElement
(id, score, rank) tuples. A missing leaderboard reads as an empty one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from jiffy import _args as a
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import common_pb2 as common_pb
from jiffy._proto import leaderboard_pb2 as leaderboard_pb

# The most elements one call may carry or answer: the protocol's limit.
MAX_ELEMENTS = 8192
# The proto's enum names; messages take the name as a str.
ORDERS = {"ascending": "ASCENDING", "descending": "DESCENDING"}
_UNBOUNDED = common_pb._Unbounded()

Scores = Mapping[int, float] | Iterable[tuple[int, float]]


class LeaderboardElement(NamedTuple):
    """One element of an answer: the id, its score, and its rank in the order asked."""

    id: int
    score: float
    rank: int


def checked_name(name: object) -> str:
    """A leaderboard's name: a str, not empty."""
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"a leaderboard's name is a non-empty str, not {name!r}")
    return name


def _id(value: object) -> int:
    return a.integer(value, "id", 0, a.UINT32_MAX)


def _ids(ids: Iterable[int]) -> list[int]:
    not_ids = f"ids is a list (or other iterable) of ints, not {ids!r}"
    if isinstance(ids, int):
        raise InvalidArgumentError(not_ids)
    try:
        return [_id(each) for each in ids]
    except TypeError:
        raise InvalidArgumentError(not_ids) from None


def upsert_request(name: str, elements: Scores) -> Any:
    return leaderboard_pb._UpsertElementsRequest(
        leaderboard=name,
        elements=[
            leaderboard_pb._Element(id=_id(each), score=a.number(score, "score"))
            for each, score in a.pairs(elements, "elements")
        ],
    )


def fetch_by_rank_request(name: str, start: int, end: int, order: str) -> Any:
    first = a.integer(start, "start", 0, a.UINT32_MAX)
    last = a.integer(end, "end", 0, a.UINT32_MAX)
    if first >= last:
        raise InvalidArgumentError(f"start {start} must be below end {end}: ranks are [start, end)")
    return leaderboard_pb._GetByRankRequest(
        leaderboard=name,
        rank_range=leaderboard_pb._RankRange(start_inclusive=first, end_exclusive=last),
        order=a.choice(order, "order", ORDERS),
    )


def fetch_by_score_request(
    name: str,
    min_score: float | None,
    max_score: float | None,
    order: str,
    offset: int,
    count: int,
) -> Any:
    low = None if min_score is None else a.number(min_score, "min_score")
    high = None if max_score is None else a.number(max_score, "max_score")
    if low is not None and high is not None and low > high:
        raise InvalidArgumentError(f"min_score {min_score!r} is above max_score {max_score!r}")
    score_range = leaderboard_pb._ScoreRange(
        **({"unbounded_min": _UNBOUNDED} if low is None else {"min_inclusive": low}),
        **({"unbounded_max": _UNBOUNDED} if high is None else {"max_exclusive": high}),
    )
    return leaderboard_pb._GetByScoreRequest(
        leaderboard=name,
        score_range=score_range,
        offset=a.integer(offset, "offset", 0, a.UINT32_MAX),
        limit_elements=a.integer(count, "count", 1, MAX_ELEMENTS),
        order=a.choice(order, "order", ORDERS),
    )


def get_rank_request(name: str, ids: Iterable[int], order: str) -> Any:
    return leaderboard_pb._GetRankRequest(
        leaderboard=name, ids=_ids(ids), order=a.choice(order, "order", ORDERS)
    )


def get_competition_rank_request(name: str, ids: Iterable[int], order: str) -> Any:
    return leaderboard_pb._GetCompetitionRankRequest(
        leaderboard=name, ids=_ids(ids), order=a.choice(order, "order", ORDERS)
    )


def remove_request(name: str, ids: Iterable[int]) -> Any:
    return leaderboard_pb._RemoveElementsRequest(leaderboard=name, ids=_ids(ids))


def length_request(name: str) -> Any:
    return leaderboard_pb._GetLeaderboardLengthRequest(leaderboard=name)


def delete_request(name: str) -> Any:
    return leaderboard_pb._DeleteLeaderboardRequest(leaderboard=name)


def read_elements(response: Any) -> list[LeaderboardElement]:
    return [
        LeaderboardElement(int(each.id), float(each.score), int(each.rank))
        for each in response.elements
    ]


def read_length(response: Any) -> int:
    return int(response.count)
