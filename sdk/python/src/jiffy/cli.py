"""The `jiffy` command: caches and items from the shell.

    jiffy cache create|delete|flush NAME      jiffy cache list
    jiffy get --cache NAME KEY                jiffy set --cache NAME KEY VALUE [--ttl S]
    jiffy delete --cache NAME KEY             jiffy ttl --cache NAME KEY

The server is `--endpoint HOST:PORT`, else $JIFFY_ENDPOINT (see Endpoint.from_env);
the cache is `--cache`, else $JIFFY_CACHE. A failure prints one line on
stderr and exits 1; a miss prints nothing and exits 2 (like `grep`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from jiffy import presets
from jiffy._endpoint import Endpoint
from jiffy._exceptions import CacheError
from jiffy._sync_client import CacheClient

EXIT_FAILURE = 1
EXIT_MISS = 2
# A person is waiting: fail within seconds rather than the preset's default.
CONNECT_TIMEOUT_SECONDS = 5.0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jiffy", description="Talk to a jiffy-server.")
    parser.add_argument("--endpoint", metavar="HOST:PORT", help="server (default: $JIFFY_ENDPOINT)")
    commands = parser.add_subparsers(dest="command", required=True)

    cache = commands.add_parser("cache", help="create, list, delete or flush caches")
    cache_actions = cache.add_subparsers(dest="action", required=True)
    for action in ("create", "delete", "flush"):
        cache_actions.add_parser(action, help=f"{action} a cache").add_argument("name")
    cache_actions.add_parser("list", help="list caches")

    def item_command(name: str, help_text: str) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--cache", default=os.environ.get("JIFFY_CACHE"),
                             help="cache name (default: $JIFFY_CACHE)")  # fmt: skip
        command.add_argument("key")
        return command

    item_command("get", "print a value")
    setter = item_command("set", "store a value")
    setter.add_argument("value")
    setter.add_argument("--ttl", type=float, help="seconds (default: the preset's default TTL)")
    item_command("delete", "remove a key")
    item_command("ttl", "print the seconds a key has left")
    return parser


def _run(args: argparse.Namespace, client: CacheClient, say: Callable[[str], None]) -> int:
    if args.command == "cache":
        if args.action == "list":
            for name in sorted(client.list_caches()):
                say(name)
            return 0
        action = {
            "create": client.create_cache,
            "delete": client.delete_cache,
            "flush": client.flush_cache,
        }
        action[args.action](args.name)
        return 0
    if not args.cache:
        raise CacheError("no cache named: pass --cache NAME or set JIFFY_CACHE")
    if args.command == "set":
        client.set(args.key, args.value, ttl=args.ttl, cache=args.cache)
        return 0
    if args.command == "delete":
        client.delete(args.key, cache=args.cache)
        return 0
    if args.command == "ttl":
        left = client.get_ttl(args.key, cache=args.cache)
        if left is None:
            return EXIT_MISS
        say(f"{left:g}")
        return 0
    value = client.get(args.key, cache=args.cache)
    if value is None:
        return EXIT_MISS
    sys.stdout.buffer.write(value + b"\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        endpoint = Endpoint.parse(args.endpoint) if args.endpoint else Endpoint.from_env()
    except ValueError as exc:
        print(f"jiffy: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    config = presets.laptop.latest().replace(eager_connect_timeout=CONNECT_TIMEOUT_SECONDS)
    try:
        with CacheClient(endpoint, config) as client:
            return _run(args, client, print)
    except (CacheError, ValueError) as exc:
        print(f"jiffy: {exc}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
