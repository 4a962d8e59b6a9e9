"""Leaderboards: bad arguments refused before anything is sent (no server),
then the calls against a real jiffy-server, the async client in depth and the
sync one through the smoke test (the `client` fixture runs both)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import pytest

import jiffy
from jiffy import LeaderboardElement as E
from tests.conftest import Server, ThreadedSync
from tests.recording import recording_async_client, recording_sync_client
from tests.test_protosocket import PROTOSOCKET, answered

# (call, positional arguments, keyword arguments, what the message says)
BAD_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any], str]] = [
    ("upsert", ({},), {}, "elements is empty"),
    ("upsert", ({-1: 1.0},), {}, "id must be between 0 and 4294967295"),
    ("upsert", ({2**32: 1.0},), {}, "id must be between"),
    ("upsert", ({"7": 1.0},), {}, "id is an int"),
    ("upsert", ({True: 1.0},), {}, "id is an int"),
    ("upsert", ({1: math.nan},), {}, "score must be a finite number"),
    ("upsert", ({1: math.inf},), {}, "score must be a finite number"),
    ("upsert", ({1: "high"},), {}, "score is a number"),
    ("upsert", ([(1,)],), {}, "each item is a pair"),
    ("fetch_by_rank", (5, 5), {}, "start 5 must be below end 5"),
    ("fetch_by_rank", (-1, 5), {}, "start must be between 0"),
    ("fetch_by_rank", (0, 1.5), {}, "end is an int"),
    ("fetch_by_rank", (0, 5), {"order": "up"}, "order is one of 'ascending', 'descending'"),
    ("fetch_by_score", (2, 1), {}, "min_score 2 is above max_score 1"),
    ("fetch_by_score", (None, math.inf), {}, "max_score must be a finite number"),
    ("fetch_by_score", (), {"count": 0}, "count must be between 1 and 8192"),
    ("fetch_by_score", (), {"count": 8193}, "count must be between 1 and 8192"),
    ("fetch_by_score", (), {"offset": -1}, "offset must be between 0"),
    ("get_rank", (7,), {}, "ids is a list (or other iterable) of ints"),
    ("get_rank", ([1.5],), {}, "id is an int"),
    ("get_competition_rank", ([1],), {"order": "DESC"}, "order is one of"),
    ("remove_elements", (None,), {}, "ids is a list (or other iterable) of ints"),
]


@pytest.mark.parametrize(("call", "args", "kwargs", "message"), BAD_CALLS)
async def test_bad_arguments_send_nothing(
    call: str, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    async_client, async_recorder = await recording_async_client()
    with pytest.raises(jiffy.InvalidArgumentError, match=re.escape(message)):
        await getattr(async_client.leaderboard("b"), call)(*args, **kwargs)
    sync_client, sync_recorder = recording_sync_client()
    with pytest.raises(jiffy.InvalidArgumentError):
        getattr(sync_client.leaderboard("b"), call)(*args, **kwargs)
    assert async_recorder.sent == sync_recorder.sent == []


async def test_a_leaderboard_names_its_cache_and_itself() -> None:
    client, recorder = await recording_async_client()  # default_cache "c"
    board = client.leaderboard("scores")
    assert (board.cache, board.name) == ("c", "scores")
    assert client.leaderboard("scores", cache="other").cache == "other"
    assert repr(board) == "AsyncLeaderboard(cache='c', name='scores')"
    for bad in ("", b"scores", 7):
        with pytest.raises(jiffy.InvalidArgumentError, match="non-empty str"):
            client.leaderboard(bad)  # type: ignore[arg-type]
    client.default_cache = None
    with pytest.raises(jiffy.InvalidArgumentError, match="no cache named"):
        client.leaderboard("scores")
    assert recorder.sent == []


async def test_requests_carry_what_was_asked() -> None:
    client, recorder = await recording_async_client()
    board = client.leaderboard("scores")
    await board.upsert([(1, 2.5), (4_294_967_295, -1)])
    await board.fetch_by_rank(3, 9, order="descending")
    await board.fetch_by_score(1.5, None, offset=2, count=3)
    await board.get_competition_rank([4])
    upsert, by_rank, by_score, competition = (request for _, request in recorder.sent)
    assert [(e.id, e.score) for e in upsert.elements] == [(1, 2.5), (4_294_967_295, -1.0)]
    assert (by_rank.rank_range.start_inclusive, by_rank.rank_range.end_exclusive) == (3, 9)
    assert by_rank.order == 1  # DESCENDING
    assert by_score.score_range.min_inclusive == 1.5
    assert by_score.score_range.WhichOneof("max") == "unbounded_max"
    assert (by_score.offset, by_score.limit_elements, by_score.order) == (2, 3, 0)
    assert competition.order == 1, "competition ranks are descending unless asked"


# Against a real server.


def leaderboard(client: Any, name: str) -> Any:
    """`client.leaderboard(name)`, its calls awaitable whichever client it is."""
    if isinstance(client, ThreadedSync):
        return ThreadedSync(client.sync.leaderboard(name))  # type: ignore[arg-type]
    return client.leaderboard(name)


async def test_smoke_both_clients(client: Any) -> None:
    board = leaderboard(client, "board")
    await board.upsert({1: 10.0, 2: 20.0, 3: 30.0})
    assert await board.length() == 3
    assert await board.fetch_by_rank(0, 2) == [E(1, 10.0, 0), E(2, 20.0, 1)]
    assert await board.fetch_by_rank(0, 2, order="descending") == [E(3, 30.0, 0), E(2, 20.0, 1)]
    assert await board.fetch_by_score(15, 30) == [E(2, 20.0, 1)]
    assert await board.get_rank([3, 99]) == [E(3, 30.0, 2)]
    assert await board.get_competition_rank([3]) == [E(3, 30.0, 0)]
    await board.remove_elements([1, 99])
    assert await board.length() == 2
    await board.delete()
    assert await board.length() == 0


async def test_missing_leaderboard_reads_as_empty(async_client: jiffy.AsyncCacheClient) -> None:
    board = async_client.leaderboard("none")
    assert await board.length() == 0
    assert await board.fetch_by_rank(0, 10) == []
    assert await board.fetch_by_score() == []
    assert await board.get_rank([1]) == []
    await board.remove_elements([1])
    await board.delete()


async def test_ranks_order_ties_and_paging(async_client: jiffy.AsyncCacheClient) -> None:
    board = async_client.leaderboard("board")
    # Ties on 5.0 are ordered by id, in either order.
    await board.upsert({30: 5.0, 10: 5.0, 20: 5.0, 1: -2.5, 99: 100.0})
    await board.upsert([(1, 0.5), (1, 1.0)])  # the last score given wins
    ascending = [E(1, 1.0, 0), E(10, 5.0, 1), E(20, 5.0, 2), E(30, 5.0, 3), E(99, 100.0, 4)]
    assert await board.fetch_by_rank(0, 8192) == ascending
    assert await board.fetch_by_rank(1, 3) == ascending[1:3]
    assert await board.fetch_by_rank(5, 9) == []
    descending = await board.fetch_by_rank(0, 5, order="descending")
    assert [e.id for e in descending] == [99, 30, 20, 10, 1]
    assert [e.rank for e in descending] == [0, 1, 2, 3, 4]
    # Scores [min, max): 100.0 is left out; then paged.
    assert [e.id for e in await board.fetch_by_score(1.0, 100.0)] == [1, 10, 20, 30]
    assert [e.id for e in await board.fetch_by_score(1.0, 100.0, offset=1, count=2)] == [10, 20]
    paged = await board.fetch_by_score(order="descending", offset=3)
    assert [e.id for e in paged] == [10, 1]
    assert await board.get_rank([20, 1], order="descending") == [E(20, 5.0, 2), E(1, 1.0, 4)]
    # Competition ranks: the ties share the rank of the elements scored ahead.
    shared = await board.get_competition_rank([10, 20, 30, 1])
    assert [(e.id, e.rank) for e in shared] == [(10, 1), (20, 1), (30, 1), (1, 4)]


async def test_ids_span_uint32(async_client: jiffy.AsyncCacheClient) -> None:
    board = async_client.leaderboard("ids")
    await board.upsert({0: 1.0, 2**32 - 1: 2.0})
    assert [e.id for e in await board.fetch_by_rank(0, 2)] == [0, 2**32 - 1]


async def test_server_refusals(async_client: jiffy.AsyncCacheClient) -> None:
    board = async_client.leaderboard("board")
    with pytest.raises(jiffy.InvalidArgumentError):
        await board.fetch_by_rank(0, 8193)  # wider than 8192 ranks
    with pytest.raises(jiffy.InvalidArgumentError):
        await board.upsert({n: 1.0 for n in range(8193)})
    assert await board.length() == 0, "a refused upsert changes nothing"
    with pytest.raises(jiffy.CacheNotFoundError):
        await async_client.leaderboard("board", cache="no-such-cache").length()


async def test_over_grpc_beside_protosocket(
    start_server: Callable[..., Server], cache_name: str
) -> None:
    server = start_server(*PROTOSOCKET)
    config = jiffy.Config(protosocket_endpoint=server.protosocket_address)
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache=cache_name) as client:
        assert client.transport == "protosocket"
        await client.create_cache(cache_name)
        board = client.leaderboard("board")
        await board.upsert({7: 1.5})
        assert await board.get_rank([7]) == [E(7, 1.5, 0)]
    assert answered(server, "UpsertElements", "grpc") == 1
    assert answered(server, "GetRank", "grpc") == 1


async def test_a_board_past_the_element_limit(
    start_server: Callable[..., Server], cache_name: str
) -> None:
    server = start_server("--max-collection-elements", "3")
    async with jiffy.AsyncCacheClient(server.endpoint, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        board = client.leaderboard("board")
        await board.upsert({1: 1.0, 2: 2.0, 3: 3.0})
        with pytest.raises(jiffy.LimitExceededError):
            await board.upsert({4: 4.0})
        assert [e.id for e in await board.fetch_by_rank(0, 10)] == [1, 2, 3]
