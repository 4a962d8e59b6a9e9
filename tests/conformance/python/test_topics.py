"""Topics through the official SDK's TopicClient (sync and asyncio).

Subscribers are on the first front-end and publishers on the last: over a
Redis Cluster (two front-ends) every message crosses from one jiffy-server
to the other. The SDK gives each subscription a 5 s deadline and loops on
any error after that, so each test reads what it expects well within it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Protocol

import grpc
import pytest
from momento import CredentialProvider, TopicClient, TopicClientAsync, TopicConfigurations
from momento.errors import MomentoErrorCode
from momento.responses import TopicPublish, TopicSubscribe, TopicSubscriptionItem
from momento_wire_types import cachepubsub_pb2 as pubsub_pb
from momento_wire_types import cachepubsub_pb2_grpc as pubsub_grpc
from momento_wire_types import controlclient_pb2 as control_pb
from momento_wire_types import controlclient_pb2_grpc as control_grpc


class FrontEnd(Protocol):
    """What these tests need of the conftest's JiffyServer."""

    host: str
    port: int


def credentials(server: FrontEnd) -> CredentialProvider:
    return CredentialProvider.for_momento_local(server.host, server.port)


def topic_client(server: FrontEnd) -> TopicClient:
    return TopicClient(TopicConfigurations.Default.latest(), credentials(server))


@pytest.fixture
def topic_clients(front_ends: list[FrontEnd]) -> Iterator[list[TopicClient]]:
    with ExitStack() as stack:
        yield [stack.enter_context(topic_client(server)) for server in front_ends]


@pytest.fixture
def subscriber(topic_clients: list[TopicClient]) -> TopicClient:
    return topic_clients[0]


@pytest.fixture
def publisher(topic_clients: list[TopicClient]) -> TopicClient:
    return topic_clients[-1]


@pytest.fixture
def topic() -> str:
    return f"topic-{uuid.uuid4().hex[:12]}"


def subscribed(response: object) -> TopicSubscribe.Subscription:
    assert isinstance(response, TopicSubscribe.Subscription), response
    return response


def published(response: object) -> None:
    assert isinstance(response, TopicPublish.Success), response


def test_text_and_binary_arrive_in_order_and_numbered(
    subscriber: TopicClient, publisher: TopicClient, cache_name: str, topic: str
) -> None:
    subscription = subscribed(subscriber.subscribe(cache_name, topic))
    published(publisher.publish(cache_name, topic, "hello"))
    published(publisher.publish(cache_name, topic, b"\x00\xffbytes"))
    first = next(subscription)
    second = next(subscription)
    assert isinstance(first, TopicSubscriptionItem.Text), first
    assert isinstance(second, TopicSubscriptionItem.Binary), second
    assert (first.value, first.sequence_number) == ("hello", 1)
    assert (second.value, second.sequence_number) == (b"\x00\xffbytes", 2)
    assert first.sequence_page == second.sequence_page != 0
    subscription.unsubscribe()


def test_two_subscribers_get_the_same_messages_and_numbers(
    topic_clients: list[TopicClient], publisher: TopicClient, cache_name: str, topic: str
) -> None:
    # One subscriber per front-end (two over a Redis Cluster), both on one topic.
    subscriptions = [
        subscribed(client.subscribe(cache_name, topic))
        for client in (topic_clients[0], topic_clients[-1])
    ]
    for n in range(5):
        published(publisher.publish(cache_name, topic, f"m{n}"))
    received = [
        [(item.value, item.sequence_number) for item in (next(s) for _ in range(5))]
        for s in subscriptions
    ]
    assert received[0] == received[1] == [(f"m{n}", n + 1) for n in range(5)]
    for subscription in subscriptions:
        subscription.unsubscribe()


def test_a_new_subscription_starts_with_the_newest_message(
    subscriber: TopicClient, publisher: TopicClient, cache_name: str, topic: str
) -> None:
    # As the SDK's own suite expects of the service: publish, then subscribe.
    published(publisher.publish(cache_name, topic, "before"))
    subscription = subscribed(subscriber.subscribe(cache_name, topic))
    item = next(subscription)
    assert isinstance(item, TopicSubscriptionItem.Text), item
    assert item.value == "before"
    subscription.unsubscribe()


def test_resume_at_a_sequence_number(
    subscriber: TopicClient, publisher: TopicClient, cache_name: str, topic: str
) -> None:
    for value in ("foo", "middle", "bar"):
        published(publisher.publish(cache_name, topic, value))
    first = subscribed(subscriber.subscribe(cache_name, topic))
    page = next(first).sequence_page
    first.unsubscribe()
    resumed = subscribed(
        subscriber.subscribe(
            cache_name,
            topic,
            resume_at_topic_sequence_number=2,
            resume_at_topic_sequence_page=page,
        )
    )
    values = [next(resumed).value for _ in range(2)]
    assert values == ["middle", "bar"]
    resumed.unsubscribe()


def test_resume_on_an_unknown_page_replays_what_is_held(
    subscriber: TopicClient, publisher: TopicClient, cache_name: str, topic: str
) -> None:
    published(publisher.publish(cache_name, topic, "only"))
    subscription = subscribed(
        subscriber.subscribe(
            cache_name,
            topic,
            resume_at_topic_sequence_number=300,
            resume_at_topic_sequence_page=5435435,
        )
    )
    item = next(subscription)
    assert isinstance(item, TopicSubscriptionItem.Text), item
    assert item.value == "only"
    subscription.unsubscribe()


def test_a_missing_cache_is_not_found(subscriber: TopicClient, publisher: TopicClient) -> None:
    missing = f"py-missing-{uuid.uuid4().hex[:12]}"
    publish = publisher.publish(missing, "t", "x")
    assert isinstance(publish, TopicPublish.Error), publish
    assert publish.error_code == MomentoErrorCode.NOT_FOUND_ERROR
    subscribe = subscriber.subscribe(missing, "t")
    assert isinstance(subscribe, TopicSubscribe.Error), subscribe
    assert subscribe.error_code == MomentoErrorCode.NOT_FOUND_ERROR


@pytest.mark.asyncio
async def test_the_asyncio_client_publishes_and_subscribes(
    front_ends: list[FrontEnd], cache_name: str, topic: str
) -> None:
    configuration = TopicConfigurations.Default.latest()
    clients = [
        TopicClientAsync(configuration, credentials(server))
        for server in (front_ends[0], front_ends[-1])
    ]
    async with clients[0] as subscriber, clients[1] as publisher:
        subscription = await subscriber.subscribe(cache_name, topic)
        assert isinstance(subscription, TopicSubscribe.SubscriptionAsync), subscription
        published(await publisher.publish(cache_name, topic, "async"))
        item = await subscription.__anext__()
        assert isinstance(item, TopicSubscriptionItem.Text), item
        assert (item.value, item.sequence_number) == ("async", 1)
        subscription.unsubscribe()


def test_deleting_the_cache_ends_the_stream_with_not_found(channels: list[grpc.Channel]) -> None:
    # On the wire: the SDK's iterators retry any error forever, so they
    # cannot show how a stream ends.
    cache = f"py-topic-delete-{uuid.uuid4().hex[:8]}"
    control = control_grpc.ScsControlStub(channels[-1])
    metadata = [("authorization", "")]
    control.CreateCache(control_pb._CreateCacheRequest(cache_name=cache), metadata=metadata)
    stub = pubsub_grpc.PubsubStub(channels[0])
    request = pubsub_pb._SubscriptionRequest(cache_name=cache, topic="t")
    stream = stub.Subscribe(request, metadata=metadata, timeout=10)
    assert next(stream).WhichOneof("kind") == "heartbeat"
    control.DeleteCache(control_pb._DeleteCacheRequest(cache_name=cache), metadata=metadata)
    # Heartbeats until the delete reaches it, then the status.
    with pytest.raises(grpc.RpcError) as ended:
        list(stream)
    assert ended.value.code() == grpc.StatusCode.NOT_FOUND
    assert "err" not in dict(ended.value.trailing_metadata() or ())
