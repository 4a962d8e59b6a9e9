"""The protosocket frame decoder and encoders, without a server: frames split
across reads, several frames in one read, and varint edge cases."""

from __future__ import annotations

import random

import pytest

import jiffy
from jiffy import _protosocket as ps
from jiffy._exceptions import StatusError
from jiffy._proto import protosocket_cache_pb2 as cache_pb
from jiffy._protosocket import FrameDecoder, FrameError


def varint_reference(value: int) -> bytes:
    """The varint of `value` as the protobuf runtime writes it (a uint64 field's tag stripped)."""
    encoded = cache_pb.CacheResponse(message_id=value).SerializeToString()
    return encoded[1:]  # field 1, wire type 0: one tag byte


@pytest.mark.parametrize(
    "value", [0, 1, 127, 128, 255, 300, 16_383, 16_384, 2**21 - 1, 2**21, 2**28, 2**63, 2**64 - 1]
)
def test_varint_is_protobufs(value: int) -> None:
    if value:
        assert ps.varint(value) == varint_reference(value)
    else:
        assert ps.varint(value) == b"\x00"


def frames_of(*messages: bytes) -> bytes:
    return b"".join(ps.frame(message) for message in messages)


def test_several_frames_in_one_read() -> None:
    messages = [b"a", b"", b"bc" * 100, b"d" * 200]
    assert FrameDecoder().feed(frames_of(*messages)) == messages


def test_a_frame_split_at_every_byte() -> None:
    messages = [b"x" * 300, b"y", b"z" * 20_000]
    stream = frames_of(*messages)
    decoder = FrameDecoder()
    got: list[bytes] = []
    for index in range(len(stream)):
        got += decoder.feed(stream[index : index + 1])
    assert got == messages
    assert decoder.buffered == 0


def test_random_splits_give_the_same_frames() -> None:
    rng = random.Random(17)
    messages = [
        bytes([n % 256]) * rng.choice([0, 1, 127, 128, 129, 5000, 70_000]) for n in range(60)
    ]
    stream = frames_of(*messages)
    for _ in range(20):
        decoder = FrameDecoder()
        got: list[bytes] = []
        position = 0
        while position < len(stream):
            step = rng.randint(1, 9000)
            got += decoder.feed(stream[position : position + step])
            position += step
        assert got == messages


def test_a_length_prefix_split_inside_the_varint() -> None:
    message = b"m" * 20_000  # a three-byte length prefix
    stream = ps.frame(message)
    decoder = FrameDecoder()
    assert decoder.feed(stream[:1]) == []
    assert decoder.feed(stream[1:2]) == []
    assert decoder.feed(stream[2:3] + b"m") == []
    assert decoder.feed(stream[4:] + ps.frame(b"next")) == [message, b"next"]


def test_a_large_frame_in_many_reads_is_parsed_once_complete() -> None:
    message = b"v" * 4_000_000
    stream = ps.frame(message)
    decoder = FrameDecoder()
    chunks = [stream[i : i + 65_536] for i in range(0, len(stream), 65_536)]
    for chunk in chunks[:-1]:
        assert decoder.feed(chunk) == []
    assert decoder.feed(chunks[-1]) == [message]


def test_a_frame_over_the_limit_is_refused_before_it_arrives() -> None:
    decoder = FrameDecoder(limit=1000)
    with pytest.raises(FrameError, match="over the limit"):
        decoder.feed(ps.varint(5000) + b"only the start")


def test_a_prefix_longer_than_ten_bytes_is_no_varint() -> None:
    with pytest.raises(FrameError, match="not a varint"):
        FrameDecoder().feed(b"\xff" * 11)


def test_a_ten_byte_prefix_that_is_not_finished_waits() -> None:
    decoder = FrameDecoder(limit=2**70)
    assert decoder.feed(b"\x80" * 9) == []


def test_answers_decode_with_their_ids() -> None:
    answers = [
        cache_pb.CacheResponse(message_id=n, get=cache_pb.GetResponse(value=b"v%d" % n))
        for n in (3, 1, 2)
    ]
    stream = frames_of(*(answer.SerializeToString() for answer in answers))
    parsed = [ps.parse_response(frame) for frame in FrameDecoder().feed(stream)]
    assert [(r.message_id, r.get.value) for r in parsed] == [(3, b"v3"), (1, b"v1"), (2, b"v2")]


def error_answer(code: str, message: str, reason: str = "") -> object:
    error = cache_pb.CacheResponse(message_id=1)
    error.error.code = ps.common_pb.Status.Value(code)
    error.error.message = message
    error.error.reason = reason
    return error


def test_an_answer_is_read_as_the_value_a_miss_as_none_and_other_errors_raise() -> None:
    hit = cache_pb.CacheResponse(message_id=1, get=cache_pb.GetResponse(value=b"v"))
    assert ps.outcome(hit) == b"v"
    assert ps.outcome(cache_pb.CacheResponse(message_id=1, set=cache_pb.SetResponse())) is None
    miss = error_answer("NOT_FOUND", ps.MISS_MESSAGE)
    assert ps.outcome(miss) is None
    with pytest.raises(StatusError) as raised:
        ps.outcome(error_answer("NOT_FOUND", "cache `x` does not exist"))
    assert (raised.value.code, raised.value.transport) == ("NOT_FOUND", "protosocket")
    assert raised.value.reason is None


def test_the_servers_reason_is_read_from_its_field() -> None:
    answer = error_answer("RESOURCE_EXHAUSTED", "any words", ps.ANSWER_TOO_LARGE)
    error = ps.command_error(answer.error)  # type: ignore[attr-defined]
    assert (error.code, error.reason) == ("RESOURCE_EXHAUSTED", ps.ANSWER_TOO_LARGE)


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("item size limit exceeded: value is 9 bytes", "item_size_limit_exceeded"),
        (
            "the value is 9 bytes, over the 8 bytes a protosocket answer can carry;"
            " read it over gRPC",
            ps.ANSWER_TOO_LARGE,
        ),
        ("cache `x` does not exist", None),
    ],
)
def test_without_the_field_the_reason_is_read_from_the_message(
    message: str, reason: str | None
) -> None:
    """What a server that predates CommandError.reason sends."""
    error = ps.command_error(error_answer("RESOURCE_EXHAUSTED", message).error)  # type: ignore[attr-defined]
    assert error.reason == reason


def test_a_value_protosocket_cannot_carry_is_refused_before_sending() -> None:
    with pytest.raises(jiffy.LimitExceededError, match="protosocket_endpoint is None") as raised:
        ps.set_command("c", b"k", b"v" * (ps.MAX_VALUE + 1), 1000)
    assert raised.value.reason == "item_size_limit_exceeded"
    ps.set_command("c", b"k", b"v" * ps.MAX_VALUE, 1000)


def test_cancel_frame() -> None:
    [frame] = FrameDecoder().feed(ps.cancel_frame(42))
    command = cache_pb.CacheCommand.FromString(frame)
    assert (command.message_id, command.control_code) == (42, 1)
