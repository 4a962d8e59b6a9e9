"""Start jiffy-server on a free port and say hello through the official Momento Python SDK.

Run by `make demo`. The server binary comes from JIFFY_SERVER_BIN
(default: target/release/jiffy-server).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from momento import CacheClient, Configurations, CredentialProvider
from momento.responses import CacheGet, CreateCache

ROOT = Path(__file__).resolve().parent.parent
SERVER_BIN = os.environ.get("JIFFY_SERVER_BIN", str(ROOT / "target/release/jiffy-server"))


def start_server() -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(
        [SERVER_BIN, "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    for line in server.stdout:
        if line.startswith("listening on "):
            return server, int(line.rsplit(":", 1)[1])
    raise SystemExit("jiffy-server exited before it was ready")


def main() -> int:
    server, port = start_server()
    print(f"jiffy-server is listening on 127.0.0.1:{port}")
    try:
        credentials = CredentialProvider.for_momento_local("127.0.0.1", port)
        with CacheClient.create(
            Configurations.Laptop.latest(), credentials, timedelta(seconds=60)
        ) as client:
            created = client.create_cache("demo")
            print(f"create_cache('demo')        -> {type(created).__name__}")
            if not isinstance(created, (CreateCache.Success, CreateCache.CacheAlreadyExists)):
                return 1
            client.set("demo", "greeting", "hello from jiffy")
            print("set('greeting')             -> stored")
            got = client.get("demo", "greeting")
            if not isinstance(got, CacheGet.Hit):
                print(f"get('greeting')             -> unexpected {got}")
                return 1
            print(f"get('greeting')             -> {got.value_string!r}")
            missing = client.get("demo", "no-such-key")
            print(f"get('no-such-key')          -> {type(missing).__name__}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    print("demo finished: the official Momento SDK talked to jiffy-server unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
