"""publish and subscribe against a real jiffy-server, both clients.

Broken streams are made by a TCP forwarder between the client and the
server (`Forwarder.cut()` drops every connection through it, `freeze()`
holds their bytes) and by the server's stream fault injection, so that the
server, its caches and its topics live on while the client's stream dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import jiffy
from jiffy._proto import cachepubsub_pb2 as pb
from jiffy._topics import TopicCursor
from tests.conftest import Server
from tests.test_faults_each_call import attempts_or_zero
from tests.test_faults_headers import with_fault_headers

CACHE = "faults"  # the cache test_faults_headers' helpers put fault headers on
# Quick retries, and heartbeats every 200 ms, so the tests need not wait long.
CONFIG = jiffy.presets.in_region.latest().replace(
    retry=jiffy.RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.1)
)
SERVER_FLAGS = ("--enable-fault-injection", "--topic-heartbeat-interval", "200ms")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    running = Server(tmp_path_factory.mktemp("topics"), SERVER_FLAGS)
    yield running
    running.stop()


class Forwarder:
    """Forwards TCP connections to the server; cut() and freeze() break them."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.listen_port = 0
        self.connections = 0
        self._writers: list[asyncio.StreamWriter] = []
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.listen_port = self._server.sockets[0].getsockname()[1]

    @property
    def endpoint(self) -> jiffy.Endpoint:
        return jiffy.Endpoint.local("127.0.0.1", self.listen_port)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self._writers += [writer, up_writer]
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while chunk := await reader.read(65536):
                await self._flowing.wait()
                writer.write(chunk)
                await writer.drain()
        writer.close()

    def cut(self) -> None:
        """Drop every connection now (RST), as a failed network would."""
        for writer in self._writers:
            writer.transport.abort()
        self._writers.clear()

    def freeze(self) -> None:
        """Hold every byte in both directions: the connections stay up, silent."""
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    async def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()


@pytest.fixture
async def forwarder(server: Server) -> AsyncIterator[Forwarder]:
    made = Forwarder(server.port)
    await made.start()
    yield made
    await made.stop()


@pytest.fixture
async def publisher(server: Server) -> AsyncIterator[jiffy.AsyncCacheClient]:
    """A client of its own for publishing, straight to the server, with the cache made."""
    async with jiffy.AsyncCacheClient(server.endpoint, CONFIG, default_cache=CACHE) as client:
        with contextlib.suppress(jiffy.AlreadyExistsError):
            await client.create_cache(CACHE)
        yield client


@pytest.fixture
def topic(request: pytest.FixtureRequest) -> str:
    return f"topic-{request.node.name}"


async def take(subscription: jiffy.AsyncSubscription, count: int) -> list[jiffy.TopicMessage]:
    """The next `count` items, which must all be messages, within 10 s."""

    async def read() -> list[jiffy.TopicMessage]:
        got = []
        async for item in subscription:
            assert isinstance(item, jiffy.TopicMessage), item
            got.append(item)
            if len(got) == count:
                break
        return got

    return await asyncio.wait_for(read(), 10)


async def subscribers(server: Server) -> float:
    return server.metric("jiffy_topic_subscribers")


async def until(condition: Callable[[], Any], what: str) -> None:
    for _ in range(200):
        if await condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def test_text_and_bytes_arrive_as_published(
    publisher: jiffy.AsyncCacheClient, topic: str
) -> None:
    async with await publisher.subscribe(topic) as subscription:
        await publisher.publish(topic, "héllo")
        await publisher.publish(topic, b"\x00\xff")
        text, binary = await take(subscription, 2)
    assert (text.value, binary.value) == ("héllo", b"\x00\xff")
    assert binary.sequence_number == text.sequence_number + 1
    assert binary.sequence_page == text.sequence_page > 0
    assert text.publisher_id == ""  # no auth: no publisher to name
    assert text.next_position == jiffy.TopicPosition(text.sequence_number + 1, text.sequence_page)


async def test_the_blocking_client_publishes_and_subscribes(server: Server, topic: str) -> None:
    def run() -> list[str | bytes]:
        with jiffy.CacheClient(server.endpoint, CONFIG, default_cache=CACHE) as client:
            with contextlib.suppress(jiffy.AlreadyExistsError):
                client.create_cache(CACHE)
            with client.subscribe(topic) as subscription:
                client.publish(topic, "one")
                client.publish(topic, b"two")
                values = []
                for item in subscription:
                    assert isinstance(item, jiffy.TopicMessage)
                    values.append(item.value)
                    if len(values) == 2:
                        break
                return values

    assert await asyncio.wait_for(asyncio.to_thread(run), 20) == ["one", b"two"]


async def test_two_subscribers_see_the_same_numbered_messages(
    publisher: jiffy.AsyncCacheClient, topic: str
) -> None:
    first = await publisher.subscribe(topic)
    second = await publisher.subscribe(topic)
    for n in range(5):
        await publisher.publish(topic, f"m{n}")
    one, two = await asyncio.gather(take(first, 5), take(second, 5))
    assert one == two
    assert [m.value for m in one] == [f"m{n}" for n in range(5)]
    await first.aclose()
    await second.aclose()


async def test_a_cut_connection_resumes_where_it_left_off(
    publisher: jiffy.AsyncCacheClient, forwarder: Forwarder, topic: str
) -> None:
    async with jiffy.AsyncCacheClient(forwarder.endpoint, CONFIG, default_cache=CACHE) as client:
        subscription = await client.subscribe(topic)
        await publisher.publish(topic, "before")
        [before] = await take(subscription, 1)
        forwarder.cut()
        for n in range(3):  # published while the subscriber has no stream
            await publisher.publish(topic, f"during {n}")
        after = await take(subscription, 3)
        assert [m.value for m in after] == ["during 0", "during 1", "during 2"]
        assert after[0].sequence_number == before.sequence_number + 1
        assert subscription.reconnects >= 1
        assert forwarder.connections >= 2
        await subscription.aclose()


async def test_a_stream_broken_again_and_again_loses_and_repeats_nothing(
    server: Server, publisher: jiffy.AsyncCacheClient, topic: str
) -> None:
    client = jiffy.AsyncCacheClient(server.endpoint, CONFIG, default_cache=CACHE)
    async with client:
        # Every Subscribe stream ends UNAVAILABLE after 3 messages (heartbeats count).
        with_fault_headers(
            client, {"stream-error": "unavailable", "stream-error-message-limit": "3"}
        )
        subscription = await client.subscribe(topic)
        for n in range(12):
            await publisher.publish(topic, str(n))
        got = await take(subscription, 12)
        assert [m.value for m in got] == [str(n) for n in range(12)]
        assert subscription.reconnects >= 4
        await subscription.aclose()


async def test_a_silent_stream_is_taken_for_dead_and_opened_again(
    publisher: jiffy.AsyncCacheClient, forwarder: Forwarder, topic: str
) -> None:
    async with jiffy.AsyncCacheClient(forwarder.endpoint, CONFIG, default_cache=CACHE) as client:
        # Heartbeats come every 200 ms: 1 s of silence means the stream is dead.
        subscription = await client.subscribe(topic, idle_timeout=1.0)
        forwarder.freeze()
        await publisher.publish(topic, "while frozen")
        await asyncio.sleep(1.5)
        forwarder.thaw()
        [message] = await take(subscription, 1)
        assert message.value == "while frozen"
        assert subscription.reconnects >= 1
        await subscription.aclose()


async def test_discontinuities_are_items(start_server: Callable[..., Server], topic: str) -> None:
    small = start_server("--topic-buffer-messages", "5")
    async with jiffy.AsyncCacheClient(small.endpoint, CONFIG, default_cache=CACHE) as client:
        await client.create_cache(CACHE)
        for n in range(1, 21):
            await client.publish(topic, str(n))
        # Message 2 has left the 5-message buffer: a gap, then the oldest held (16).
        subscription = await client.subscribe(topic, resume_at=2)
        gap = await asyncio.wait_for(subscription.__anext__(), 10)
        assert isinstance(gap, jiffy.TopicDiscontinuity)
        assert (gap.last_sequence_number, gap.new_sequence_number) == (1, 15)
        held = await take(subscription, 5)
        assert [(m.value, m.sequence_number) for m in held] == [(str(n), n) for n in range(16, 21)]
        # A flush starts the topic again on a new page, after a discontinuity.
        page = held[0].sequence_page
        await client.flush_cache(CACHE)
        await client.publish(topic, "fresh")
        restart = await asyncio.wait_for(subscription.__anext__(), 10)
        assert isinstance(restart, jiffy.TopicDiscontinuity)
        assert restart.new_sequence_page > page
        [fresh] = await take(subscription, 1)
        assert (fresh.value, fresh.sequence_number) == ("fresh", 1)
        assert fresh.sequence_page == restart.new_sequence_page
        await subscription.aclose()


async def test_a_missing_cache_raises_cache_not_found(publisher: jiffy.AsyncCacheClient) -> None:
    with pytest.raises(jiffy.CacheNotFoundError):
        await publisher.publish("t", "v", cache="no-such-cache")
    with pytest.raises(jiffy.CacheNotFoundError):
        await publisher.subscribe("t", cache="no-such-cache")


async def test_deleting_the_cache_ends_the_subscription(
    publisher: jiffy.AsyncCacheClient, topic: str
) -> None:
    await publisher.create_cache("doomed")
    subscription = await publisher.subscribe(topic, cache="doomed")
    await publisher.delete_cache("doomed")
    with pytest.raises(jiffy.CacheNotFoundError):
        await asyncio.wait_for(subscription.__anext__(), 10)
    with pytest.raises(StopAsyncIteration):
        await subscription.__anext__()


async def test_break_aclose_cancel_and_client_close_stop_it(
    server: Server, publisher: jiffy.AsyncCacheClient, topic: str
) -> None:
    async def none_left() -> bool:
        return await subscribers(server) == 0

    await until(none_left, "earlier tests' subscriptions to end")
    subscription = await publisher.subscribe(topic)
    await publisher.publish(topic, "x")
    async for _ in subscription:
        break
    await subscription.aclose()
    await until(none_left, "the stream to end after break and aclose")

    # Other topics from here on: a new subscription to `topic` would start
    # with its newest message, "x".
    subscription = await publisher.subscribe(f"{topic}-cancelled")
    reader = asyncio.create_task(take(subscription, 1))
    await asyncio.sleep(0.1)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    await until(none_left, "the stream to end after the reader's cancellation")

    client = jiffy.AsyncCacheClient(server.endpoint, CONFIG, default_cache=CACHE)
    subscription = await client.subscribe(f"{topic}-closed")
    reader = asyncio.create_task(take(subscription, 1))
    await asyncio.sleep(0.1)
    await client.aclose()
    assert await reader == []  # iteration ended, no error
    await until(none_left, "the stream to end after the client closed")
    with pytest.raises(jiffy.ConnectionError):
        await client.subscribe(topic)


async def test_closing_the_blocking_client_ends_a_loop_in_another_thread(
    server: Server, topic: str
) -> None:
    client = jiffy.CacheClient(server.endpoint, CONFIG, default_cache=CACHE)
    subscription = await asyncio.to_thread(client.subscribe, topic)
    ended = threading.Event()

    def loop() -> None:
        for _ in subscription:
            pass
        ended.set()

    thread = threading.Thread(target=loop)
    thread.start()
    await asyncio.sleep(0.3)
    await asyncio.to_thread(client.close)
    await asyncio.to_thread(thread.join, 10)
    assert ended.is_set()


async def test_publish_is_never_retried(server: Server, topic: str) -> None:
    async with jiffy.AsyncCacheClient(server.endpoint, CONFIG, default_cache=CACHE) as client:
        subscription = await client.subscribe(topic)
        before = attempts_or_zero(server, "Publish")
        with_fault_headers(
            client, {"return-error": "unavailable", "error-rpcs": "publish", "error-count": "1"}
        )
        with pytest.raises(jiffy.ConnectionError):
            await client.publish(topic, "once")
        assert attempts_or_zero(server, "Publish") - before == 1
        await client.publish(topic, "twice")  # the fault was for one call only
        [message] = await take(subscription, 1)
        assert message.value == "twice"
        await subscription.aclose()


def test_bad_arguments_are_refused_before_sending() -> None:
    client = jiffy.CacheClient(jiffy.Endpoint.local("127.0.0.1", 9), default_cache="c")
    client.close()
    with pytest.raises(jiffy.InvalidArgumentError):
        client.publish("t", 42)  # type: ignore[arg-type]
    with pytest.raises(jiffy.InvalidArgumentError):
        client.subscribe("t", resume_at=-1)
    with pytest.raises(jiffy.InvalidArgumentError):
        client.subscribe(7)  # type: ignore[arg-type]


def _item(number: int, page: int = 7, value: str = "v") -> Any:
    topic_item = pb._TopicItem(
        topic_sequence_number=number, sequence_page=page, value=pb._TopicValue(text=value)
    )
    return pb._SubscriptionItem(item=topic_item)


def test_the_cursor_resumes_after_what_it_saw_and_drops_what_comes_again() -> None:
    def resume_point(cursor: TopicCursor) -> tuple[int, int]:
        request = cursor.subscription_request("c", "t")
        return request.resume_at_topic_sequence_number, request.sequence_page

    cursor = TopicCursor(jiffy.TopicPosition(4, 7))
    assert resume_point(cursor) == (4, 7)
    assert cursor.take(pb._SubscriptionItem(heartbeat=pb._Heartbeat())) is None
    assert resume_point(cursor) == (4, 7)
    assert cursor.take(_item(4)) == jiffy.TopicMessage("v", 4, 7, "")
    assert cursor.take(_item(4, value="again")) is None  # resent after a resume
    assert resume_point(cursor) == (5, 7)
    gap = pb._Discontinuity(last_topic_sequence=4, new_topic_sequence=10, new_sequence_page=9)
    assert cursor.take(pb._SubscriptionItem(discontinuity=gap)) == jiffy.TopicDiscontinuity(
        4, 10, 9
    )
    assert resume_point(cursor) == (11, 9)
    assert cursor.take(_item(3, page=9)) is None
    assert cursor.take(_item(11, page=9)) is not None
    assert resume_point(TopicCursor(None)) == (0, 0)
