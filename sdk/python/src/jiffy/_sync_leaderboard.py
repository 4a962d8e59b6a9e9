# Generated from _async_leaderboard.py by scripts/generate_sync.py: do not edit.
"""Leaderboards: `client.leaderboard(name)` and the calls of the one it answers.

A leaderboard ranks ids (ints from 0 to 2**32 - 1) by score (a finite
float), each id held once; _leaderboard.py says how ranks and ties are read.
The calls go over gRPC whatever carries get and set: the protosocket port
does not carry leaderboards (the catalogue's `transports`).
"""

from __future__ import annotations

from collections.abc import Iterable

from jiffy import _calls as c
from jiffy import _leaderboard as lb
from jiffy._leaderboard import MAX_ELEMENTS, LeaderboardElement, Scores
from jiffy._sync_base import SyncClientBase
from jiffy._sync_route import SyncRoute


class Leaderboard:
    """One leaderboard of one cache. Made by `client.leaderboard(...)`; it
    holds no state of its own, so any number may name the same leaderboard.
    Each call may raise a jiffy.CacheError, as the client's do."""

    def __init__(self, route: SyncRoute, cache: str, name: str) -> None:
        self.cache = cache
        self.name = name
        self._route = route

    def __repr__(self) -> str:
        return f"{type(self).__name__}(cache={self.cache!r}, name={self.name!r})"

    def upsert(self, elements: Scores) -> None:
        """Give each id its score (a mapping id -> score, or (id, score) pairs;
        1 to 8192), adding the ids not held; an id given twice keeps the last
        score. The leaderboard is created by its first upsert."""
        request = lb.upsert_request(self.name, elements)
        self._route.call(c.UPSERT_ELEMENTS, request, self.cache)

    def fetch_by_rank(
        self, start: int, end: int, *, order: str = "ascending"
    ) -> list[LeaderboardElement]:
        """The elements at ranks [start, end) in `order` ("ascending": rank 0 is
        the lowest score; "descending": the highest); at most 8192 ranks, fewer
        answered where the leaderboard ends."""
        request = lb.fetch_by_rank_request(self.name, start, end, order)
        return lb.read_elements(self._route.call(c.GET_BY_RANK, request, self.cache))

    def fetch_by_score(
        self,
        min_score: float | None = None,
        max_score: float | None = None,
        *,
        order: str = "ascending",
        offset: int = 0,
        count: int = MAX_ELEMENTS,
    ) -> list[LeaderboardElement]:
        """The elements scored from `min_score` (inclusive) up to `max_score`
        (exclusive) in `order`, None leaving a bound open; of those, the first
        `offset` are skipped and at most `count` (1 to 8192) answered. Ranks
        are the elements' ranks in the whole leaderboard."""
        request = lb.fetch_by_score_request(self.name, min_score, max_score, order, offset, count)
        return lb.read_elements(self._route.call(c.GET_BY_SCORE, request, self.cache))

    def get_rank(self, ids: Iterable[int], *, order: str = "ascending") -> list[LeaderboardElement]:
        """The elements of `ids` that the leaderboard holds, with their ranks in
        `order`; ids it does not hold are left out."""
        request = lb.get_rank_request(self.name, ids, order)
        return lb.read_elements(self._route.call(c.GET_RANK, request, self.cache))

    def get_competition_rank(
        self, ids: Iterable[int], *, order: str = "descending"
    ) -> list[LeaderboardElement]:
        """As `get_rank`, but tied scores share a rank: the number of elements
        scored strictly ahead in `order` (by default "descending": the highest
        score is rank 0)."""
        request = lb.get_competition_rank_request(self.name, ids, order)
        response = self._route.call(c.GET_COMPETITION_RANK, request, self.cache)
        return lb.read_elements(response)

    def length(self) -> int:
        """How many ids the leaderboard holds; 0 when it is missing."""
        request = lb.length_request(self.name)
        return lb.read_length(self._route.call(c.GET_LEADERBOARD_LENGTH, request, self.cache))

    def remove_elements(self, ids: Iterable[int]) -> None:
        """Remove `ids` (at most 8192; those not held are ignored)."""
        request = lb.remove_request(self.name, ids)
        self._route.call(c.REMOVE_ELEMENTS, request, self.cache)

    def delete(self) -> None:
        """Remove the whole leaderboard; deleting a missing one is not an error."""
        self._route.call(c.DELETE_LEADERBOARD, lb.delete_request(self.name), self.cache)


class SyncLeaderboardCalls(SyncClientBase):
    def leaderboard(self, name: str, *, cache: str | None = None) -> Leaderboard:
        """The leaderboard `name` of `cache` (default: the client's default_cache),
        whose calls go through this client: its cap, deadline and retries.
        Sends nothing: a leaderboard exists once something is upserted."""
        return Leaderboard(self._route, self._cache_name(cache), lb.checked_name(name))
