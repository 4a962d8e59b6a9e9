"""Topics without I/O: what a subscriber gets, the requests, and where to resume.

Both clients build their Publish and Subscribe requests and read the
subscription's stream here, so that the async subscription and the sync one
(generated from it) differ only in how they wait.

What a subscriber sees is a sequence of items, each a `TopicMessage` or a
`TopicDiscontinuity`, in the order the server sent them. Discontinuities are
items of the stream rather than a callback or a flag on the next message:
a gap matters at the point where it happened (a cache invalidated by topic
messages must drop what it holds now, not when the next message comes,
which may be never), a loop sees it with no second code path or thread, and
code that does not care skips it with one `isinstance`. Heartbeats never
reach the caller; the subscription uses them to tell a quiet topic from a
dead stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import cachepubsub_pb2 as pubsub_pb


@dataclass(frozen=True, slots=True)
class TopicPosition:
    """Where a subscription starts: message `sequence_number` of page
    `sequence_page` (0: the topic's current page). Pass one as `resume_at`."""

    sequence_number: int
    sequence_page: int = 0


@dataclass(frozen=True, slots=True)
class TopicMessage:
    """One published message as a subscriber receives it.

    `value` is `str` if it was published as text and `bytes` if as bytes.
    Every subscriber sees a message under the same `sequence_number` (1, 2,
    3, ... per topic) and `sequence_page` (which changes when the numbering
    starts again at 1). `publisher_id` names the publisher where the server
    knows it (jiffy-server: its token's subject), else "".
    """

    value: str | bytes
    sequence_number: int
    sequence_page: int
    publisher_id: str

    @property
    def next_position(self) -> TopicPosition:
        """The `resume_at` of a later subscription that should go on after this message."""
        return TopicPosition(self.sequence_number + 1, self.sequence_page)


@dataclass(frozen=True, slots=True)
class TopicDiscontinuity:
    """Messages were missed here: the subscriber fell behind, came back after
    the topic dropped what it missed, or the topic started again (a flush).

    `last_sequence_number` is the last number the subscriber had (0 if
    none); the next message is `new_sequence_number + 1` on page
    `new_sequence_page`.
    """

    last_sequence_number: int
    new_sequence_number: int
    new_sequence_page: int


TopicItem = TopicMessage | TopicDiscontinuity


def check_topic_name(topic: str) -> str:
    if not isinstance(topic, str):
        raise InvalidArgumentError(f"a topic name is a str, not {type(topic).__name__}")
    return topic


def topic_value(value: str | bytes) -> Any:
    """str goes as text, bytes as binary: a subscriber gets back the type published."""
    if isinstance(value, str):
        return pubsub_pb._TopicValue(text=value)
    if isinstance(value, bytes | bytearray | memoryview):
        return pubsub_pb._TopicValue(binary=bytes(value))
    raise InvalidArgumentError(f"a topic message is str or bytes, not {type(value).__name__}")


def publish_request(cache: str, topic: str, value: str | bytes) -> Any:
    return pubsub_pb._PublishRequest(
        cache_name=cache, topic=check_topic_name(topic), value=topic_value(value)
    )


def resume_position(resume_at: TopicPosition | int | None) -> TopicPosition | None:
    """`resume_at` as given to subscribe: a TopicPosition, or a bare sequence number."""
    if resume_at is None:
        return None
    if isinstance(resume_at, int) and not isinstance(resume_at, bool):
        resume_at = TopicPosition(resume_at)
    if not isinstance(resume_at, TopicPosition):
        raise InvalidArgumentError(
            "resume_at is a TopicPosition (e.g. message.next_position) or a sequence number,"
            f" not {resume_at!r}"
        )
    for number in (resume_at.sequence_number, resume_at.sequence_page):
        if not isinstance(number, int) or not 0 <= number < 2**64:
            raise InvalidArgumentError(f"resume_at holds numbers in 0 .. 2**64 - 1: {resume_at!r}")
    return resume_at


class TopicCursor:
    """Where a subscription is in its topic: turns the stream's messages into
    items, and says where to resume when the stream has to be opened again.

    A subscription that has seen a message or a discontinuity resumes just
    after it, on its page; one that has seen nothing resumes where it was
    asked to start (`resume_at`), else at the topic's newest message.
    """

    __slots__ = ("_start", "_seen", "_number", "_page")

    def __init__(self, start: TopicPosition | None) -> None:
        self._start = start
        self._seen = False
        self._number = 0
        self._page = 0

    def subscription_request(self, cache: str, topic: str) -> Any:
        if self._seen:
            number, page = self._number + 1, self._page
        elif self._start is not None:
            number, page = self._start.sequence_number, self._start.sequence_page
        else:
            number, page = 0, 0
        return pubsub_pb._SubscriptionRequest(
            cache_name=cache,
            topic=check_topic_name(topic),
            resume_at_topic_sequence_number=number,
            sequence_page=page,
        )

    def take(self, message: Any) -> TopicItem | None:
        """The item a stream message stands for; None for a heartbeat, or for a
        message already delivered (a server that resends after a resume)."""
        kind = message.WhichOneof("kind")
        if kind == "item":
            item = message.item
            number, page = int(item.topic_sequence_number), int(item.sequence_page)
            if self._seen and page == self._page and number <= self._number:
                return None
            self._seen, self._number, self._page = True, number, page
            which = item.value.WhichOneof("kind")
            value: str | bytes = item.value.text if which == "text" else item.value.binary
            return TopicMessage(value, number, page, item.publisher_id)
        if kind == "discontinuity":
            gap = message.discontinuity
            new_number, new_page = int(gap.new_topic_sequence), int(gap.new_sequence_page)
            self._seen, self._number, self._page = True, new_number, new_page
            return TopicDiscontinuity(int(gap.last_topic_sequence), new_number, new_page)
        return None
