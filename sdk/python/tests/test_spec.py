"""Both clients agree with sdk/spec.json: the same calls, each sending the
spec's RPC, each RPC of the table its catalogue row (test_generated.py
checks the table is what sdk/gen_calls.py writes today)."""

from __future__ import annotations

import functools
import inspect
import operator
import typing
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

import pytest

import jiffy
from jiffy import SetIf, SetIfHash, TopicPosition
from jiffy import _calls as c
from tests.recording import load_spec, recording_async_client, recording_sync_client
from tests.test_generated import SDK_ROOT, load_script

SPEC_CALLS: list[dict[str, Any]] = load_spec()["calls"]
SPEC_RPCS: dict[str, dict[str, Any]] = {row["rpc"]: row for row in load_spec()["rpcs"]}
# sdk/gen_calls.py: how a `returns` of the spec reads as a Python annotation.
GEN_CALLS = load_script("gen_calls", SDK_ROOT.parent)
# The client's methods that answer an object whose methods are calls too
# (`on`: client.leaderboard(...)), and the calls of the client itself.
ACCESSORS = {call["on"] for call in SPEC_CALLS if "on" in call}
SPEC_NAMES = {call["python"] for call in SPEC_CALLS if "on" not in call} | ACCESSORS
RPC_BY_NAME = {rpc.name: rpc for rpc in c.ALL_RPCS}
# Public attributes that are the client's lifecycle, not calls of the protocol,
# what carries get/set/delete (`transport`), and the readers of the in-flight
# limit (the spec's `adaptive.methods`).
LIFECYCLE = {"connect", "aclose", "close", "in_flight_high_water", "transport"} | {
    method["python"] for method in load_spec()["adaptive"]["methods"]
}

# A valid argument per parameter name, to run every call once.
ARGUMENTS: dict[str, Any] = {
    "key": "k", "keys": ["k"], "value": "v", "values": ["v"], "name": "n", "field": "f",
    "fields": ["f"], "element": "e", "elements": ["e"], "items": {"f": "v"}, "amount": 1,
    "score": 1.5, "ttl": 1, "limit": 1, "destination": "d", "sources": {"s": 1.0}, "topic": "t",
    "permissions": "super_user", "expires_in": 60, "refresh_token": "r",
}  # fmt: skip
ARGUMENTS_BY_CALL: dict[tuple[str, str], Any] = {
    ("set_if", "condition"): SetIf.present(),
    ("set_if_hash", "condition"): SetIfHash.unconditional(),
    ("set_many", "items"): {"k": "v"},
    ("sorted_set_put_elements", "elements"): {"v": 1.5},
    ("upsert", "elements"): {7: 1.5},
    ("fetch_by_rank", "start"): 0,
    ("fetch_by_rank", "end"): 10,
    ("get_rank", "ids"): [7],
    ("get_competition_rank", "ids"): [7],
    ("remove_elements", "ids"): [7],
}


def public_calls(client_class: type) -> set[str]:
    return {name for name in dir(client_class) if not name.startswith("_")} - LIFECYCLE


def owner_class(client_class: type, call: dict[str, Any]) -> type:
    """The class whose method `call` is: the client's, or what its `on` answers."""
    if "on" not in call:
        return client_class
    answered: type = typing.get_type_hints(getattr(client_class, call["on"]))["return"]
    return answered


def owner(client: Any, call: dict[str, Any]) -> Any:
    """The object to call `call` on: the client, or what its `on` method answers."""
    if "on" not in call:
        return client
    accessor = getattr(client, call["on"])
    return accessor(*required_arguments(accessor, call["on"]))


def required_arguments(method: Any, call: str) -> list[Any]:
    parameters = inspect.signature(method).parameters.values()  # bound: no self
    return [
        ARGUMENTS_BY_CALL.get((call, p.name), ARGUMENTS.get(p.name))
        for p in parameters
        if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD
    ]


def test_spec_names_each_call_once() -> None:
    assert len({(call.get("on"), call["python"]) for call in SPEC_CALLS}) == len(SPEC_CALLS)


@pytest.mark.parametrize("client_class", [jiffy.AsyncCacheClient, jiffy.CacheClient])
def test_every_spec_call_is_on_the_client(client_class: type) -> None:
    missing = SPEC_NAMES - public_calls(client_class)
    assert not missing, f"{client_class.__name__} lacks {sorted(missing)}"
    for call in SPEC_CALLS:
        assert callable(getattr(owner_class(client_class, call), call["python"], None)), call


@pytest.mark.parametrize("client_class", [jiffy.AsyncCacheClient, jiffy.CacheClient])
def test_every_public_call_is_in_the_spec(client_class: type) -> None:
    extra = public_calls(client_class) - SPEC_NAMES
    assert not extra, f"{client_class.__name__} has calls the spec lacks: {sorted(extra)}"
    for on in ACCESSORS:
        answered = owner_class(client_class, {"on": on})
        offered = {call["python"] for call in SPEC_CALLS if call.get("on") == on}
        extra = public_calls(answered) - offered
        assert not extra, f"{answered.__name__} has calls the spec lacks: {sorted(extra)}"


# Services the server serves before this SDK offers them: none of their RPCs
# may be in `calls` yet, and once one is, all must be (the test below then
# fails until the service leaves this set).
# The admin calls are sent by the `jiffy` command (`jiffy keys`), not offered
# by the clients.
NOT_IN_THE_SDK_YET = {"jiffy.admin.Admin"}


def test_every_rpc_is_in_the_spec() -> None:
    offered = {
        name
        for name, rpc in RPC_BY_NAME.items()
        if rpc.path.split("/")[1] not in NOT_IN_THE_SDK_YET
    }
    assert offered == {call["rpc"] for call in SPEC_CALLS}
    assert set(RPC_BY_NAME) <= set(SPEC_RPCS)


@pytest.mark.parametrize("call", SPEC_CALLS, ids=lambda call: call["python"])
def test_each_call_answers_what_the_spec_says(call: dict[str, Any]) -> None:
    # The sync client is generated from the async one, annotations included.
    expected = GEN_CALLS.python_type(GEN_CALLS.returns(call, "python"))
    method = getattr(owner_class(jiffy.AsyncCacheClient, call), call["python"])
    assert inspect.signature(method).return_annotation == expected


# What the catalogue's argument shapes name, as sdk/gen_calls.py writes them.
ARG_NAMES = {
    "Iterable": Iterable, "Mapping": Mapping, "timedelta": timedelta,
    "SetIf": SetIf, "SetIfHash": SetIfHash, "TopicPosition": TopicPosition,
    "Permissions": jiffy.Permissions,
}  # fmt: skip
# Every public call takes `cache=` where the catalogue says it names a cache.
CACHE_ARGUMENT = {"name": "cache", "shape": "str", "optional": True, "option": True}


def without_none(annotation: Any) -> Any:
    """`int | None` -> `int`: an argument that may be left out may also be None."""
    kept = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    is_union = typing.get_origin(annotation) in (typing.Union, type(int | str))
    return functools.reduce(operator.or_, kept) if is_union else annotation


def argument_row(name: str, kind: Any, optional: bool, annotation: Any) -> tuple[Any, ...]:
    return (name, kind is inspect.Parameter.KEYWORD_ONLY, optional, without_none(annotation))


@pytest.mark.parametrize("call", SPEC_CALLS, ids=lambda call: call["python"])
def test_each_call_takes_what_the_spec_says(call: dict[str, Any]) -> None:
    # The sync client is generated from the async one, signatures included.
    method = getattr(owner_class(jiffy.AsyncCacheClient, call), call["python"])
    hints = typing.get_type_hints(method)
    parameters = list(inspect.signature(method).parameters.values())[1:]  # not self
    taken = [
        argument_row(p.name, p.kind, p.default is not p.empty, hints[p.name]) for p in parameters
    ]
    arguments = GEN_CALLS.args(call, "python")
    if GEN_CALLS.takes_cache(load_spec(), call):
        arguments.append(CACHE_ARGUMENT)
    expected = [
        argument_row(
            a["name"],
            inspect.Parameter.KEYWORD_ONLY
            if a["option"]
            else inspect.Parameter.POSITIONAL_OR_KEYWORD,
            a["optional"],
            eval(GEN_CALLS.python_arg(a), dict(ARG_NAMES)),  # noqa: S307 (the catalogue's types)
        )
        for a in arguments
    ]
    # Positional arguments in order; keyword-only ones in any order.
    assert [row for row in taken if not row[1]] == [row for row in expected if not row[1]]
    assert sorted(row[:3] for row in taken if row[1]) == sorted(
        row[:3] for row in expected if row[1]
    )
    by_name = {row[0]: row for row in expected}
    for row in taken:
        assert row == by_name[row[0]], (
            f"{call['python']}({row[0]}): {row[3]} != {by_name[row[0]][3]}"
        )


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"args": None}, "no `args`"),
        ({"args": "name: bytes, limit: long"}, "no argument shape 'long'"),
        ({"js_args": "name: bytes"}, "without `args_why`"),
        ({"args": "name: bytes, signal: abort_signal"}, "not an argument in Python"),
    ],
)
def test_the_generator_refuses_a_calls_row_it_cannot_check(
    change: dict[str, Any], error: str
) -> None:
    spec = load_spec()
    row = next(call for call in spec["calls"] if call["python"] == "set_sample")
    row.update(change)
    if row["args"] is None:
        del row["args"]
    with pytest.raises(GEN_CALLS.CatalogueError, match=error):
        GEN_CALLS.check_calls(spec)


@pytest.mark.parametrize("rpc", RPC_BY_NAME.values(), ids=lambda rpc: rpc.name)
def test_each_rpc_is_its_catalogue_row(rpc: c.Rpc) -> None:
    row = SPEC_RPCS[rpc.name]
    assert rpc.path == f"/{row['service']}/{row['rpc']}"
    assert (rpc.idempotent, rpc.streaming) == (row["idempotent"], row["streaming"])


@pytest.mark.parametrize("call", SPEC_CALLS, ids=lambda call: call["python"])
async def test_each_call_sends_its_rpc(call: dict[str, Any]) -> None:
    # The retry flag is the RPC's, so the flag check above only holds if each
    # call really sends the RPC the spec names: both clients, one call each.
    name = call["python"]
    async_client, async_recorder = await recording_async_client()
    method = getattr(owner(async_client, call), name)
    await method(*required_arguments(method, name))
    sync_client, sync_recorder = recording_sync_client()
    sync_method = getattr(owner(sync_client, call), name)
    sync_method(*required_arguments(sync_method, name))
    for recorder in (async_recorder, sync_recorder):
        assert [rpc.name for rpc, _ in recorder.sent] == [call["rpc"]]
