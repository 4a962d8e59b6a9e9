"""Say hello to jiffy-server through the official Momento Python SDK, unchanged.

Run by `make demo` (demo/run.sh), which starts the server and sets
JIFFY_ENDPOINT to its HOST:PORT.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta

from momento import CacheClient, Configurations, CredentialProvider
from momento.responses import CacheGet, CreateCache


def main() -> int:
    host, _, port = os.environ.get("JIFFY_ENDPOINT", "127.0.0.1:8080").rpartition(":")
    credentials = CredentialProvider.for_momento_local(host, int(port))
    with CacheClient.create(
        Configurations.Laptop.latest(), credentials, timedelta(seconds=60)
    ) as client:
        created = client.create_cache("demo")
        print(f"create_cache('demo')        -> {type(created).__name__}")
        if not isinstance(created, (CreateCache.Success, CreateCache.CacheAlreadyExists)):
            return 1
        client.set("demo", "greeting", "hello from the official momento SDK")
        print("set('greeting')             -> stored")
        got = client.get("demo", "greeting")
        if not isinstance(got, CacheGet.Hit):
            print(f"get('greeting')             -> unexpected {got}")
            return 1
        print(f"get('greeting')             -> {got.value_string!r}")
        missing = client.get("demo", "no-such-key")
        print(f"get('no-such-key')          -> {type(missing).__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
