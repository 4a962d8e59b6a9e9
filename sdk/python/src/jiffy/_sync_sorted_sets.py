# Generated from _async_sorted_sets.py by scripts/generate_sync.py: do not edit.
"""The sorted set calls of CacheClient.

A sorted set holds distinct values (str or bytes; answers are bytes), each
with a finite score (a float). Its order is by score, ties by the values'
bytes; `order="descending"` reverses it. Elements come back as (value,
score) pairs. A missing sorted set reads as empty: no elements, length 0,
no score or rank (None).
"""

from __future__ import annotations

from collections.abc import Iterable

from jiffy import _calls as c
from jiffy import _sorted_set as z
from jiffy._calls import Key, Ttl, Value
from jiffy._sorted_set import Scores, Weights
from jiffy._sync_base import SyncClientBase


class SyncSortedSetCalls(SyncClientBase):
    def sorted_set_put_element(
        self,
        name: Key,
        value: Value,
        score: float,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> None:
        """Add `value` with `score`, or set the score of a value already there.

        `ttl` (default: the config's default_ttl) is given to a new set, and
        to an existing one too unless `refresh_ttl=False`.
        """
        self.sorted_set_put_elements(
            name, [(value, score)], ttl=ttl, refresh_ttl=refresh_ttl, cache=cache
        )

    def sorted_set_put_elements(
        self,
        name: Key,
        elements: Scores,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> None:
        """Put each of `elements` (a mapping value -> score, or (value, score) pairs;
        at least one). A value given twice keeps the last score. TTL as
        `sorted_set_put_element`."""
        request = z.put_request(name, elements, self._ttl(ttl), refresh_ttl)
        self._route.call(c.SORTED_SET_PUT, request, self._cache_name(cache))

    def sorted_set_fetch_by_rank(
        self,
        name: Key,
        start: int | None = None,
        end: int | None = None,
        *,
        order: str = "ascending",
        cache: str | None = None,
    ) -> list[tuple[bytes, float]]:
        """The elements at ranks [start:end] in `order` ("ascending" or "descending"),
        as Python slices a list: `start` inclusive, `end` exclusive, negatives
        from the end, None open, clipped; [] when nothing is selected."""
        request = z.fetch_by_rank_request(name, start, end, order)
        if request is None:  # a start at or after the end: surely empty
            return []
        response = self._route.call(c.SORTED_SET_FETCH, request, self._cache_name(cache))
        return z.read_fetch(response)

    def sorted_set_fetch_by_score(
        self,
        name: Key,
        min_score: float | None = None,
        max_score: float | None = None,
        *,
        exclusive_min: bool = False,
        exclusive_max: bool = False,
        order: str = "ascending",
        offset: int = 0,
        count: int | None = None,
        cache: str | None = None,
    ) -> list[tuple[bytes, float]]:
        """The elements scored between `min_score` and `max_score`, in `order`.

        Each bound is inclusive unless `exclusive_min` / `exclusive_max`, and
        None leaves it open (an infinite bound is allowed too). Of those, the
        first `offset` are skipped and at most `count` (>= 1; None: all) come
        back. A min above the max is InvalidArgumentError.
        """
        request = z.fetch_by_score_request(
            name, min_score, max_score, exclusive_min, exclusive_max, order, offset, count
        )
        response = self._route.call(c.SORTED_SET_FETCH, request, self._cache_name(cache))
        return z.read_fetch(response)

    def sorted_set_get_score(
        self, name: Key, value: Value, *, cache: str | None = None
    ) -> float | None:
        """The score of `value`, or None when the set does not hold it."""
        return (self.sorted_set_get_scores(name, [value], cache=cache))[0]

    def sorted_set_get_scores(
        self, name: Key, values: Iterable[Value], *, cache: str | None = None
    ) -> list[float | None]:
        """The scores of `values` in order, None for each not held."""
        request = z.get_score_request(name, values)
        response = self._route.call(c.SORTED_SET_GET_SCORE, request, self._cache_name(cache))
        return z.read_scores(response, len(request.values))

    def sorted_set_get_rank(
        self, name: Key, value: Value, *, order: str = "ascending", cache: str | None = None
    ) -> int | None:
        """The 0-based position of `value` in `order`, or None when not held."""
        request = z.get_rank_request(name, value, order)
        response = self._route.call(c.SORTED_SET_GET_RANK, request, self._cache_name(cache))
        return z.read_rank(response)

    def sorted_set_increment_score(
        self,
        name: Key,
        value: Value,
        amount: float = 1.0,
        *,
        ttl: Ttl | None = None,
        refresh_ttl: bool = True,
        cache: str | None = None,
    ) -> float:
        """Add `amount` to the score of `value` (absent: 0, a missing set is created);
        the new score. WrongTypeError when the sum overflows to infinity. TTL
        as `sorted_set_put_element`."""
        request = z.increment_request(name, value, amount, self._ttl(ttl), refresh_ttl)
        response = self._route.call(c.SORTED_SET_INCREMENT, request, self._cache_name(cache))
        return float(response.score)

    def sorted_set_remove_elements(
        self, name: Key, values: Iterable[Value], *, cache: str | None = None
    ) -> None:
        """Remove `values` (those not held are ignored); the TTL is kept."""
        request = z.remove_request(name, values)
        self._route.call(c.SORTED_SET_REMOVE, request, self._cache_name(cache))

    def sorted_set_length(self, name: Key, *, cache: str | None = None) -> int:
        """How many elements sorted set `name` holds; 0 when it is missing."""
        request = z.length_request(name)
        response = self._route.call(c.SORTED_SET_LENGTH, request, self._cache_name(cache))
        return c.read_length(response, z.GROUP)

    def sorted_set_length_by_score(
        self,
        name: Key,
        min_score: float | None = None,
        max_score: float | None = None,
        *,
        exclusive_min: bool = False,
        exclusive_max: bool = False,
        cache: str | None = None,
    ) -> int:
        """How many elements are scored between the bounds (as
        `sorted_set_fetch_by_score` reads them); 0 when the set is missing."""
        request = z.length_by_score_request(
            name, min_score, max_score, exclusive_min, exclusive_max
        )
        response = self._route.call(c.SORTED_SET_LENGTH_BY_SCORE, request, self._cache_name(cache))
        return c.read_length(response, z.GROUP)

    def sorted_set_union_store(
        self,
        destination: Key,
        sources: Weights,
        *,
        aggregate: str = "sum",
        ttl: Ttl | None = None,
        cache: str | None = None,
    ) -> int:
        """Replace `destination` with the union of `sources`; its new length.

        `sources` maps each source set's name to its weight (or is a list of
        (name, weight) pairs; at least one): a value's score is its score in
        each source holding it times that weight, combined by `aggregate`
        ("sum", "min" or "max"). A missing source counts as empty; the
        destination is a source only if listed, and an empty union removes
        it. The destination gets `ttl` (default: the config's default_ttl).
        Weights travel as 32-bit floats.
        """
        request = z.union_store_request(destination, sources, aggregate, self._ttl(ttl))
        response = self._route.call(c.SORTED_SET_UNION_STORE, request, self._cache_name(cache))
        return z.read_union_length(response)
