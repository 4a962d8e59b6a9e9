"""A fixed client workload for counting the Python SDK's instructions per call.

`calls` get+set pairs (half gets, half sets, 100-byte values over 1,000 keys)
from `tasks` asyncio tasks, over protosocket (or gRPC), against a running
jiffy-server. It prints the transport that carried them and exits; the
counting is call_cost.py's, which runs this under callgrind. Only the public
API is used, so the same script drives any version of the SDK on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from jiffy import AlreadyExistsError, AsyncCacheClient, Endpoint, presets

CACHE = "bench"
KEYS = 1000
VALUE = b"v" * 100


async def worker(client: AsyncCacheClient, first: int, pairs: int) -> None:
    for i in range(first, first + pairs):
        key = b"key-%d" % (i % KEYS)
        await client.set(key, VALUE)
        await client.get(key)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--endpoint", required=True, help="the server's gRPC host:port")
    parser.add_argument(
        "--protosocket-endpoint", help='its protosocket host:port, or "auto"; none: gRPC'
    )
    parser.add_argument("--pairs", type=int, required=True, help="get+set pairs in all")
    parser.add_argument("--tasks", type=int, default=1, help="tasks sending them (default 1)")
    args = parser.parse_args()
    config = presets.by_name("in_region").latest()
    # Long deadlines: under callgrind the client runs some 50 times slower.
    config = config.replace(
        protosocket_endpoint=args.protosocket_endpoint, deadline=60.0, eager_connect_timeout=60.0
    )
    async with AsyncCacheClient(Endpoint.parse(args.endpoint), config) as client:
        await client.connect()
        with contextlib.suppress(AlreadyExistsError):
            await client.create_cache(CACHE)
        client.default_cache = CACHE
        share = args.pairs // args.tasks
        await asyncio.gather(*(worker(client, t * share, share) for t in range(args.tasks)))
        print(client.transport)


if __name__ == "__main__":
    asyncio.run(main())
