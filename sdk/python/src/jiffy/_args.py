"""Argument checks shared by the collection calls.

Each check raises InvalidArgumentError naming the argument, before anything
is sent, so a bad call changes nothing. The integer bounds are the proto
fields' own: a value past them could not be encoded at all.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from jiffy._calls import Key, Value, as_bytes
from jiffy._exceptions import InvalidArgumentError

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
UINT32_MAX = 2**32 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
# The proto carries union weights as 32-bit floats: a larger weight would
# arrive as infinity, which the server refuses.
FLOAT32_MAX = 3.4028234663852886e38

T = TypeVar("T")


def _one_not_many(items: object, what: str) -> None:
    # A str or bytes is iterable, so without this check "abc" would quietly
    # become the three items "a", "b", "c".
    if isinstance(items, str | bytes | bytearray | memoryview):
        raise InvalidArgumentError(
            f"{what} is a list (or other iterable) of str or bytes, not one"
            f" {type(items).__name__}; wrap a single one in a list"
        )


def byte_list(items: Iterable[Key], what: str, *, allow_empty: bool = False) -> list[bytes]:
    """Keys, fields, values or elements as bytes, in the order given."""
    _one_not_many(items, what)
    try:
        encoded = [as_bytes(item) for item in items]
    except TypeError:
        raise InvalidArgumentError(
            f"{what} is a list (or other iterable) of str or bytes, not {items!r}"
        ) from None
    if not encoded and not allow_empty:
        raise InvalidArgumentError(f"{what} is empty: give at least one")
    return encoded


def pairs(items: Mapping[Any, T] | Iterable[tuple[Any, T]], what: str) -> list[tuple[Any, T]]:
    """A mapping's items, or an iterable of 2-tuples, as a list of pairs (at least one)."""
    _one_not_many(items, what)
    if isinstance(items, Mapping):
        listed = list(items.items())
    else:
        try:
            listed = list(items)
        except TypeError:
            raise InvalidArgumentError(
                f"{what} is a mapping or an iterable of pairs, not {items!r}"
            ) from None
        for pair in listed:
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise InvalidArgumentError(f"{what}: each item is a pair, not {pair!r}")
        listed = [(pair[0], pair[1]) for pair in listed]
    if not listed:
        raise InvalidArgumentError(f"{what} is empty: give at least one")
    return listed


def integer(value: object, what: str, low: int, high: int) -> int:
    """An int (not a bool) within [low, high]."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(f"{what} is an int, not {value!r}")
    if not low <= value <= high:
        raise InvalidArgumentError(f"{what} must be between {low} and {high}, got {value}")
    return value


def index(value: object, what: str) -> int | None:
    """A list or rank position: None (unbounded) or an int, negatives from the end."""
    return None if value is None else integer(value, what, INT32_MIN, INT32_MAX)


def number(value: object, what: str, *, allow_infinite: bool = False) -> float:
    """A score, amount or weight: an int or float (not a bool), never NaN."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise InvalidArgumentError(f"{what} is a number (int or float), not {value!r}")
    try:
        as_float = float(value)
    except OverflowError:
        raise InvalidArgumentError(f"{what} is too large for a double: {value}") from None
    if math.isnan(as_float) or (math.isinf(as_float) and not allow_infinite):
        raise InvalidArgumentError(f"{what} must be a finite number, got {value!r}")
    return as_float


def flag(value: object, what: str) -> bool:
    """A bool, strictly: `refresh_ttl="no"` would otherwise read as True."""
    if not isinstance(value, bool):
        raise InvalidArgumentError(f"{what} is True or False, not {value!r}")
    return value


def choice(value: object, what: str, options: Mapping[str, T]) -> T:
    """One of a few named options, e.g. order="ascending"."""
    if not isinstance(value, str) or value not in options:
        raise InvalidArgumentError(
            f"{what} is one of {', '.join(map(repr, options))}; got {value!r}"
        )
    return options[value]


def value(data: Value, what: str) -> bytes:
    """One key, field, value or element; the message names the argument."""
    if not isinstance(data, str | bytes | bytearray | memoryview):
        raise InvalidArgumentError(f"{what} is str or bytes, not {type(data).__name__}")
    return as_bytes(data)
