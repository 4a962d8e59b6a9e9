"""GetWithHash and SetIfHash against a real jiffy-server, both clients."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from jiffy import SetIfHash


def sha1_hex(value: bytes) -> bytes:
    # What jiffy-server answers as a value's hash (its README): the SDK only
    # hands it back, but the test can check it is the value's.
    return hashlib.sha1(value).hexdigest().encode()


async def test_get_with_hash_of_a_hit_and_a_miss(client: Any) -> None:
    await client.set("k", "hello")
    assert await client.get_with_hash("k") == (b"hello", sha1_hex(b"hello"))
    assert await client.get_with_hash("missing") is None


OLD = sha1_hex(b"old")
OTHER = sha1_hex(b"other")


@pytest.mark.parametrize(
    ("condition", "current", "stored"),
    [
        (SetIfHash.present_and_hash_equal(OLD), b"old", True),
        (SetIfHash.present_and_hash_equal(OLD), b"other", False),
        (SetIfHash.present_and_hash_equal(OLD), None, False),
        (SetIfHash.present_and_not_hash_equal(OLD), b"other", True),
        (SetIfHash.present_and_not_hash_equal(OLD), b"old", False),
        (SetIfHash.present_and_not_hash_equal(OLD), None, False),
        (SetIfHash.absent_or_hash_equal(OLD), None, True),
        (SetIfHash.absent_or_hash_equal(OLD.decode()), b"old", True),
        (SetIfHash.absent_or_hash_equal(OLD), b"other", False),
        (SetIfHash.absent_or_not_hash_equal(OLD), None, True),
        (SetIfHash.absent_or_not_hash_equal(OLD), b"other", True),
        (SetIfHash.absent_or_not_hash_equal(OLD), b"old", False),
        (SetIfHash.unconditional(), None, True),
        (SetIfHash.unconditional(), b"old", True),
    ],
)
async def test_set_if_hash_each_condition(
    client: Any, condition: SetIfHash, current: bytes | None, stored: bool
) -> None:
    if current is not None:
        await client.set("k", current)
    assert await client.set_if_hash("k", "new", condition) is stored
    assert await client.get("k") == (b"new" if stored else current)


async def test_read_then_write_if_unchanged(client: Any) -> None:
    await client.set("k", "v1")
    found = await client.get_with_hash("k")
    assert found is not None
    _, hash_read = found
    assert await client.set_if_hash("k", "v2", SetIfHash.present_and_hash_equal(hash_read))
    # The value changed since `hash_read`: a second writer with it loses.
    assert not await client.set_if_hash("k", "v3", SetIfHash.present_and_hash_equal(hash_read))
    assert await client.get("k") == b"v2"


async def test_set_if_hash_ttl(client: Any) -> None:
    assert await client.set_if_hash("k", "v", SetIfHash.unconditional(), ttl=5)
    assert 0 < await client.get_ttl("k") <= 5
