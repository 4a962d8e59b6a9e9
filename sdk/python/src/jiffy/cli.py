"""The `jiffy` command: caches, items, collections and topics from the shell.

    jiffy cache create|delete|flush NAME      jiffy cache list
    jiffy get --cache NAME KEY                jiffy set --cache NAME KEY VALUE [--ttl S]
    jiffy delete --cache NAME KEY             jiffy ttl --cache NAME KEY
    jiffy incr --cache NAME KEY [AMOUNT]      jiffy keys --cache NAME [PREFIX]
    jiffy dict get|set|fetch|remove|incr|length --cache NAME DICT ...
    jiffy list push|pop|fetch|length --cache NAME LIST ...
    jiffy members add|remove|fetch|contains|length --cache NAME SET ...
    jiffy sorted put|fetch|score|rank|remove|incr|length --cache NAME SORTED_SET ...
    jiffy publish --cache NAME TOPIC MESSAGE  jiffy subscribe --cache NAME TOPIC [--count N]
    jiffy ping                                jiffy stats [--metrics HOST:PORT]
    jiffy completion bash|zsh|tcsh

The server is `--endpoint ADDRESS`, else $JIFFY_ENDPOINT (with
$JIFFY_API_KEY; or $MOMENTO_API_KEY: see Endpoint.from_env), else the local
server at 127.0.0.1:8080. ADDRESS is `host:port` (plaintext) or
`https://host[:port]` (TLS); `--tls` and `--ca-file` make any address TLS.
The cache is `--cache`, else $JIFFY_CACHE. `set KEY -` reads the value from
stdin. Exit status as grep's: 0 found or done, 1 a miss (nothing printed),
2 a failure (one line on stderr) or bad usage.

Values are printed as they are, one a line; a dictionary's fields and a
sorted set's elements as `FIELD<TAB>VALUE` and `VALUE<TAB>SCORE`. `keys`
needs an admin token; it pages through the server's ListKeys call.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable

from jiffy import _calls, presets
from jiffy._endpoint import Endpoint, parse_address
from jiffy._exceptions import CacheError
from jiffy._proto import admin_pb2
from jiffy._sync_client import CacheClient
from jiffy._topics import TopicMessage
from jiffy._version import __version__

EXIT_MISS = 1
EXIT_FAILURE = 2
# A person at a shell most often means the server on this machine, on the
# port jiffy-server listens on by default.
LOCAL_SERVER = "127.0.0.1:8080"
# The metrics port the deploy samples and the container use.
METRICS_PORT = 9090
# A person is waiting: fail within seconds rather than the preset's default.
CONNECT_TIMEOUT_SECONDS = 5.0
# Keys asked per ListKeys call: the server's most (it refuses more).
KEYS_PAGE = 1000

Say = Callable[[str], None]


def _out(value: str | bytes) -> None:
    """A value as it is, then a newline: bytes are not decoded."""
    data = value.encode() if isinstance(value, str) else value
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def _pair(first: bytes, second: str | bytes) -> None:
    _out(first + b"\t" + (second.encode() if isinstance(second, str) else second))


def _number(value: float) -> str:
    return f"{value:g}"


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

    def with_cache(command: argparse.ArgumentParser) -> argparse.ArgumentParser:
        command.add_argument("--cache", default=os.environ.get("JIFFY_CACHE"),
                             help="cache name (default: $JIFFY_CACHE)")  # fmt: skip
        return command

    def item_command(name: str, help_text: str) -> argparse.ArgumentParser:
        command = with_cache(commands.add_parser(name, help=help_text))
        command.add_argument("key")
        return command

    def ttl_option(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "--ttl", type=float, help="seconds (default: the preset's default TTL)"
        )

    item_command("get", "print a value")
    setter = item_command("set", "store a value")
    setter.add_argument("value", help="the value, or - to read it from stdin")
    ttl_option(setter)
    item_command("delete", "remove a key")
    item_command("ttl", "print the seconds a key has left")
    incr = item_command("incr", "add to an integer value and print it")
    incr.add_argument("amount", type=int, nargs="?", default=1, help="default: 1")
    ttl_option(incr)
    keys = with_cache(commands.add_parser("keys", help="list a cache's keys (admin token)"))
    keys.add_argument("prefix", nargs="?", default="", help="only keys starting with it")
    keys.add_argument("--limit", type=int, help="stop after this many keys")

    def collection(name: str, help_text: str, noun: str) -> Callable[..., argparse.ArgumentParser]:
        actions = commands.add_parser(name, help=help_text).add_subparsers(
            dest="action", required=True
        )

        def action(verb: str, help_text: str, *arguments: str) -> argparse.ArgumentParser:
            command = with_cache(actions.add_parser(verb, help=help_text))
            command.add_argument("name", metavar=noun)
            for argument in arguments:
                if argument.endswith("..."):
                    command.add_argument(argument[:-3], nargs="+")
                elif argument.endswith("?"):
                    command.add_argument(argument[:-1], nargs="?")
                else:
                    command.add_argument(argument)
            return command

        return action

    dictionary = collection("dict", "dictionaries: fields and their values", "DICT")
    dictionary("get", "print a field's value", "field")
    ttl_option(dictionary("set", "set a field", "field", "value"))
    dictionary("fetch", "print every FIELD<TAB>VALUE")
    dictionary("remove", "remove fields", "fields...")
    ttl_option(dictionary("incr", "add to a field's integer and print it", "field", "amount?"))
    dictionary("length", "print the number of fields")

    lists = collection("list", "lists: values in order", "LIST")
    push = lists("push", "add a value at the back (--front: the front)", "value")
    push.add_argument("--front", action="store_true")
    ttl_option(push)
    lists("pop", "remove and print the front value (--back: the back)").add_argument(
        "--back", action="store_true"
    )
    lists("fetch", "print every value, front first")
    lists("length", "print the number of values")

    members = collection("members", "sets: unordered distinct elements", "SET")
    ttl_option(members("add", "add elements", "elements..."))
    members("remove", "remove elements", "elements...")
    members("fetch", "print every element")
    members("contains", "exit 0 if the element is there, else 1", "element")
    members("length", "print the number of elements")

    ranked = collection("sorted", "sorted sets: elements ordered by score", "SORTED_SET")
    ttl_option(ranked("put", "set an element's score", "value", "score"))
    ranked("fetch", "print every VALUE<TAB>SCORE, lowest score first")
    ranked("score", "print an element's score", "value")
    ranked("rank", "print an element's rank (0: lowest score)", "value")
    ranked("remove", "remove elements", "values...")
    ttl_option(ranked("incr", "add to an element's score and print it", "value", "amount?"))
    ranked("length", "print the number of elements")

    publish = with_cache(commands.add_parser("publish", help="publish a message to a topic"))
    publish.add_argument("topic")
    publish.add_argument("message", help="the message, or - to read it from stdin")
    subscribe = with_cache(commands.add_parser("subscribe", help="print a topic's messages"))
    subscribe.add_argument("topic")
    subscribe.add_argument("--count", type=int, help="exit after this many messages")

    commands.add_parser("ping", help="print the round trip to the server in milliseconds")
    stats = commands.add_parser("stats", help="print the server's figures from its /metrics")
    stats.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help=f"its metrics address (default: the server's host, port {METRICS_PORT})",
    )
    completion = commands.add_parser(
        "completion", help="print a shell completion script (needs jiffy[cli]: shtab)"
    )
    completion.add_argument("shell", choices=("bash", "zsh", "tcsh"))
    return parser


def _completion(parser: argparse.ArgumentParser, shell: str) -> int:
    """The completion script shtab writes from the parser itself, so every
    command and flag above completes without a list kept by hand."""
    try:
        import shtab
    except ImportError:
        print("jiffy: completions need shtab: pip install 'jiffy[cli]'", file=sys.stderr)
        return EXIT_FAILURE
    print(shtab.complete(parser, shell=shell))
    return 0


def _keys(client: CacheClient, cache: str, prefix: str, limit: int | None) -> int:
    """Every page of ListKeys, each key printed as it comes."""
    cursor, printed = b"", 0
    while True:
        want = KEYS_PAGE if limit is None else min(KEYS_PAGE, limit - printed)
        request = admin_pb2.ListKeysRequest(
            cache_name=cache, prefix=prefix.encode(), cursor=cursor, limit=want
        )
        page = client._route.control(_calls.LIST_KEYS, request)
        for key in page.keys:
            _out(key)
        printed += len(page.keys)
        cursor = page.next_cursor
        if not cursor or (limit is not None and printed >= limit):
            return 0


def _dict(client: CacheClient, args: argparse.Namespace, cache: str) -> int:
    name = args.name
    if args.action == "get":
        value = client.dictionary_get_field(name, args.field, cache=cache)
        if value is None:
            return EXIT_MISS
        _out(value)
    elif args.action == "set":
        client.dictionary_set_field(name, args.field, args.value, ttl=args.ttl, cache=cache)
    elif args.action == "fetch":
        for field, value in sorted(client.dictionary_fetch(name, cache=cache).items()):
            _pair(field, value)
    elif args.action == "remove":
        client.dictionary_remove_fields(name, args.fields, cache=cache)
    elif args.action == "incr":
        amount = int(args.amount or 1)
        _out(str(client.dictionary_increment(name, args.field, amount, ttl=args.ttl, cache=cache)))
    else:
        _out(str(client.dictionary_length(name, cache=cache)))
    return 0


def _list(client: CacheClient, args: argparse.Namespace, cache: str) -> int:
    name = args.name
    if args.action == "push":
        push = client.list_push_front if args.front else client.list_push_back
        push(name, args.value, ttl=args.ttl, cache=cache)
    elif args.action == "pop":
        pop = client.list_pop_back if args.back else client.list_pop_front
        value = pop(name, cache=cache)
        if value is None:
            return EXIT_MISS
        _out(value)
    elif args.action == "fetch":
        for value in client.list_fetch(name, cache=cache):
            _out(value)
    else:
        _out(str(client.list_length(name, cache=cache)))
    return 0


def _members(client: CacheClient, args: argparse.Namespace, cache: str) -> int:
    name = args.name
    if args.action == "add":
        client.set_add_elements(name, args.elements, ttl=args.ttl, cache=cache)
    elif args.action == "remove":
        client.set_remove_elements(name, args.elements, cache=cache)
    elif args.action == "fetch":
        for element in sorted(client.set_fetch(name, cache=cache)):
            _out(element)
    elif args.action == "contains":
        return 0 if client.set_contains_element(name, args.element, cache=cache) else EXIT_MISS
    else:
        _out(str(client.set_length(name, cache=cache)))
    return 0


def _sorted(client: CacheClient, args: argparse.Namespace, cache: str) -> int:
    name = args.name
    answer: float | int | None
    if args.action == "put":
        client.sorted_set_put_element(
            name, args.value, float(args.score), ttl=args.ttl, cache=cache
        )
        return 0
    if args.action == "fetch":
        for value, score in client.sorted_set_fetch_by_rank(name, cache=cache):
            _pair(value, _number(score))
        return 0
    if args.action == "remove":
        client.sorted_set_remove_elements(name, args.values, cache=cache)
        return 0
    if args.action == "score":
        answer = client.sorted_set_get_score(name, args.value, cache=cache)
    elif args.action == "rank":
        answer = client.sorted_set_get_rank(name, args.value, cache=cache)
    elif args.action == "incr":
        amount = float(args.amount or 1)
        answer = client.sorted_set_increment_score(
            name, args.value, amount, ttl=args.ttl, cache=cache
        )
    else:
        answer = client.sorted_set_length(name, cache=cache)
    if answer is None:
        return EXIT_MISS
    _out(_number(answer))
    return 0


def _subscribe(client: CacheClient, cache: str, topic: str, count: int | None) -> int:
    received = 0
    with client.subscribe(topic, cache=cache) as subscription:
        for item in subscription:
            if isinstance(item, TopicMessage):
                _out(item.value)
                received += 1
                if count is not None and received >= count:
                    return 0
    return 0


def _stdin_or(value: str) -> str | bytes:
    return sys.stdin.buffer.read() if value == "-" else value


def _run(args: argparse.Namespace, client: CacheClient, say: Say) -> int:
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
    if args.command == "ping":
        start = time.perf_counter()
        client.ping()
        say(f"{(time.perf_counter() - start) * 1000:.2f}")
        return 0
    if not args.cache:
        raise CacheError("no cache named: pass --cache NAME or set JIFFY_CACHE")
    cache: str = args.cache
    collections = {"dict": _dict, "list": _list, "members": _members, "sorted": _sorted}
    if args.command in collections:
        return collections[args.command](client, args, cache)
    if args.command == "keys":
        return _keys(client, cache, args.prefix, args.limit)
    if args.command == "publish":
        client.publish(args.topic, _stdin_or(args.message), cache=cache)
        return 0
    if args.command == "subscribe":
        return _subscribe(client, cache, args.topic, args.count)
    if args.command == "incr":
        say(str(client.increment(args.key, args.amount, ttl=args.ttl, cache=cache)))
        return 0
    if args.command == "set":
        client.set(args.key, _stdin_or(args.value), ttl=args.ttl, cache=cache)
        return 0
    if args.command == "delete":
        client.delete(args.key, cache=cache)
        return 0
    if args.command == "ttl":
        left = client.get_ttl(args.key, cache=cache)
        if left is None:
            return EXIT_MISS
        say(f"{left:g}")
        return 0
    value = client.get(args.key, cache=cache)
    if value is None:
        return EXIT_MISS
    _out(value)
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


# A sample of the Prometheus text: name, labels, value.
_SAMPLE = re.compile(r"^(jiffy_[a-z_]+)(\{[^}]*\})? (\S+)$")


def stats_lines(text: str) -> Iterable[str]:
    """The server's own figures (jiffy_*), one `name{labels} value` a line,
    without the latency histogram's buckets and the series still at zero."""
    for line in text.splitlines():
        sample = _SAMPLE.match(line)
        if sample is None or sample.group(1).endswith(("_bucket", "_sum", "_count")):
            continue
        name, labels, value = sample.groups()
        if float(value) != 0:
            yield f"{name.removeprefix('jiffy_')}{labels or ''} {_number(float(value))}"


def _stats(args: argparse.Namespace, say: Say) -> int:
    address = args.metrics or os.environ.get("JIFFY_METRICS_ENDPOINT")
    if not address:
        host, _, _ = parse_address(
            args.endpoint or os.environ.get("JIFFY_ENDPOINT") or LOCAL_SERVER, "--endpoint"
        )
        address = f"{host}:{METRICS_PORT}"
    url = f"http://{address}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=CONNECT_TIMEOUT_SECONDS) as reply:
            text = reply.read().decode()
    except OSError as exc:
        raise CacheError(
            f"no metrics at {url} ({exc}): pass --metrics HOST:PORT, the server's --metrics-listen"
        ) from exc
    for line in stats_lines(text):
        say(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "completion":
        return _completion(parser, args.shell)
    try:
        if args.command == "stats":
            return _stats(args, print)
        endpoint = _endpoint(args)
    except (CacheError, ValueError) as exc:
        print(f"jiffy: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    config = presets.laptop.latest().replace(eager_connect_timeout=CONNECT_TIMEOUT_SECONDS)
    try:
        with CacheClient(endpoint, config) as client:
            return _run(args, client, print)
    except KeyboardInterrupt:
        return 0
    except (CacheError, ValueError) as exc:
        print(f"jiffy: {exc}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
