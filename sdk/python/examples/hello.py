"""Hello from the jiffy Python SDK: create a cache, set a key, read it back.

Reads the server from $JIFFY_ENDPOINT (host:port), e.g.
    JIFFY_ENDPOINT=127.0.0.1:8080 python sdk/python/examples/hello.py
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
    endpoint = jiffy.Endpoint.from_env()
    config = jiffy.presets.laptop.latest()
    async with jiffy.AsyncCacheClient(endpoint, config, default_cache="demo") as client:
        with contextlib.suppress(jiffy.AlreadyExistsError):
            await client.create_cache("demo")
        await client.set("greeting", "hello from jiffy-python", ttl=60)
        greeting = await client.get_str("greeting")
        print(f"jiffy-python {jiffy.__version__} at {endpoint.data_target}:")
        print(f"  cache 'demo' says {greeting!r}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
