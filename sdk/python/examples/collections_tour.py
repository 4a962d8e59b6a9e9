"""The collection calls of the jiffy Python SDK, one short scene per type.

Reads the server from $JIFFY_ENDPOINT (host:port), e.g.
    JIFFY_ENDPOINT=127.0.0.1:8080 python sdk/python/examples/collections_tour.py
tests/test_examples.py runs it and checks what it prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

import jiffy


async def main() -> int:
    if not os.environ.get("JIFFY_ENDPOINT"):
        print("Set JIFFY_ENDPOINT=host:port of a running jiffy-server.", file=sys.stderr)
        return 1
    config = jiffy.presets.laptop.latest()
    async with jiffy.AsyncCacheClient(None, config, default_cache="demo") as client:
        with contextlib.suppress(jiffy.AlreadyExistsError):
            await client.create_cache("demo")
        for name in ("profile", "recent", "tags", "scores", "weekly"):
            await client.delete(name)

        # Dictionaries: fields and values; a missing field is None.
        await client.dictionary_set_fields("profile", {"name": "Ada", "visits": "0"})
        await client.dictionary_increment("profile", "visits", 3)
        print("profile:", await client.dictionary_fetch_str("profile"))
        print("email:", await client.dictionary_get_field("profile", "email"))

        # Lists: push at either end, keep the newest 3, slice as Python does.
        for page in ("home", "docs", "blog", "pricing"):
            await client.list_push_front("recent", page, truncate_back_to_size=3)
        print("recent:", await client.list_fetch("recent"))
        print("last two:", await client.list_fetch("recent", -2))

        # Sets: distinct elements; a TTL that later writes do not extend.
        await client.set_add_elements("tags", ["cache", "grpc"], ttl=60)
        await client.set_add_elements("tags", ["cache", "rust"], refresh_ttl=False)
        print("tags:", sorted(await client.set_fetch("tags")))
        print("has grpc:", await client.set_contains_element("tags", "grpc"))

        # Sorted sets: (value, score) pairs by score; union with weights.
        await client.sorted_set_put_elements("scores", {"ada": 7, "bob": 5, "cy": 9})
        await client.sorted_set_increment_score("scores", "bob", 4)
        print("top 2:", await client.sorted_set_fetch_by_rank("scores", 0, 2, order="descending"))
        print("rank of bob:", await client.sorted_set_get_rank("scores", "bob"))
        total = await client.sorted_set_union_store("weekly", {"scores": 2.0})
        print("weekly:", total, await client.sorted_set_fetch_by_score("weekly", min_score=15))

        # Hashes: write only if the value is still the one read.
        await client.set("config", "v1")
        found = await client.get_with_hash("config")  # (value, hash), or None on a miss
        if found is not None:
            unchanged = jiffy.SetIfHash.present_and_hash_equal(found[1])
            print("stored:", await client.set_if_hash("config", "v2", unchanged))
            print("stored again:", await client.set_if_hash("config", "v3", unchanged))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
