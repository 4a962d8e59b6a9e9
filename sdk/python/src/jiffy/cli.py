"""The `jiffy` command: caches and items from the shell.

    jiffy cache create|delete|flush NAME      jiffy cache list
    jiffy get --cache NAME KEY                jiffy set --cache NAME KEY VALUE [--ttl S]
    jiffy delete --cache NAME KEY             jiffy ttl --cache NAME KEY

The server is `--endpoint ADDRESS`, else $JIFFY_ENDPOINT (with
$JIFFY_API_KEY; or $MOMENTO_API_KEY: see Endpoint.from_env), else the local
server at 127.0.0.1:8080. ADDRESS is `host:port` (plaintext) or
`https://host[:port]` (TLS); `--tls` and `--ca-file` make any address TLS.
The cache is `--cache`, else $JIFFY_CACHE. `set KEY -` reads the value from
stdin. Exit status as grep's: 0 found or done, 1 a miss (nothing printed),
2 a failure (one line on stderr) or bad usage.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from jiffy import presets
from jiffy._endpoint import Endpoint, parse_address
from jiffy._exceptions import CacheError
from jiffy._sync_client import CacheClient
from jiffy._version import __version__

EXIT_MISS = 1
EXIT_FAILURE = 2
# A person at a shell most often means the server on this machine, on the
# port jiffy-server listens on by default.
LOCAL_SERVER = "127.0.0.1:8080"
# A person is waiting: fail within seconds rather than the preset's default.
CONNECT_TIMEOUT_SECONDS = 5.0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jiffy", description="Talk to a jiffy-server.")
    parser.add_argument("--version", action="version", version=f"jiffy {__version__}")
    parser.add_argument("--endpoint", metavar="ADDRESS",
                        help=f"server: host:port or https://host[:port] (default: $JIFFY_ENDPOINT,"
                             f" else {LOCAL_SERVER})")  # fmt: skip
    parser.add_argument("--tls", action="store_true", help="TLS to the server, system roots")
    parser.add_argument("--ca-file", metavar="PEM", help="TLS, trusting this CA file instead")
    parser.add_argument("--api-key", default=os.environ.get("JIFFY_API_KEY") or None,
                        help="token to send (default: $JIFFY_API_KEY)")  # fmt: skip
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
    setter.add_argument("value", help="the value, or - to read it from stdin")
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
        value = sys.stdin.buffer.read() if args.value == "-" else args.value
        client.set(args.key, value, ttl=args.ttl, cache=args.cache)
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


def _endpoint(args: argparse.Namespace) -> Endpoint:
    """The server the flags, then the environment, then the default name."""
    named = args.endpoint or os.environ.get("JIFFY_ENDPOINT") or None
    if args.tls or args.ca_file:
        host, port, _ = parse_address(named or LOCAL_SERVER, "--endpoint")
        return Endpoint.with_tls(host, port, ca_file=args.ca_file, api_key=args.api_key)
    if named:
        return Endpoint.parse(named, api_key=args.api_key)
    if os.environ.get("MOMENTO_API_KEY"):
        return Endpoint.from_env()
    return Endpoint.parse(LOCAL_SERVER, api_key=args.api_key)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        endpoint = _endpoint(args)
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
