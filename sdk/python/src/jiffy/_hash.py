"""The hash calls without I/O: GetWithHash and SetIfHash.

The server's hash of a value is opaque to the SDK (jiffy-server sends its
SHA-1 in lowercase hex): a caller only hands back one it was given, so a
write can check that the value did not change since it was read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jiffy import _args as a
from jiffy._calls import Key, Value
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import cacheclient_pb2 as cache_pb
from jiffy._proto import common_pb2 as common_pb


@dataclass(frozen=True, slots=True)
class SetIfHash:
    """The condition of `set_if_hash`: build one with the class methods.

    `hash` is one that `get_with_hash` returned (str or bytes).
    """

    field: str
    hash: bytes = b""

    @classmethod
    def present_and_hash_equal(cls, hash: Value) -> SetIfHash:
        """Store only if the key holds a value whose hash is `hash`."""
        return cls("present_and_hash_equal", a.value(hash, "hash"))

    @classmethod
    def present_and_not_hash_equal(cls, hash: Value) -> SetIfHash:
        """Store only if the key holds a value whose hash is not `hash`."""
        return cls("present_and_not_hash_equal", a.value(hash, "hash"))

    @classmethod
    def absent_or_hash_equal(cls, hash: Value) -> SetIfHash:
        """Store if the key holds nothing, or a value whose hash is `hash`."""
        return cls("absent_or_hash_equal", a.value(hash, "hash"))

    @classmethod
    def absent_or_not_hash_equal(cls, hash: Value) -> SetIfHash:
        """Store if the key holds nothing, or a value whose hash is not `hash`."""
        return cls("absent_or_not_hash_equal", a.value(hash, "hash"))

    @classmethod
    def unconditional(cls) -> SetIfHash:
        """Always store (as `set`)."""
        return cls("unconditional")


_CONDITION_MESSAGES: dict[str, Any] = {
    "present_and_hash_equal": common_pb.PresentAndHashEqual,
    "present_and_not_hash_equal": common_pb.PresentAndNotHashEqual,
    "absent_or_hash_equal": common_pb.AbsentOrHashEqual,
    "absent_or_not_hash_equal": common_pb.AbsentOrNotHashEqual,
    "unconditional": common_pb.Unconditional,
}


def get_with_hash_request(key: Key) -> Any:
    return cache_pb._GetWithHashRequest(cache_key=a.value(key, "key"))


def read_with_hash(response: Any) -> tuple[bytes, bytes] | None:
    if response.WhichOneof("result") != "found":
        return None
    return response.found.value, response.found.hash


def set_if_hash_request(key: Key, value: Value, condition: SetIfHash, ttl_ms: int) -> Any:
    if not isinstance(condition, SetIfHash):
        raise InvalidArgumentError(
            "condition is a SetIfHash, e.g. SetIfHash.present_and_hash_equal(hash),"
            f" not {condition!r}"
        )
    message = _CONDITION_MESSAGES[condition.field]
    argument = (
        message() if condition.field == "unconditional" else message(hash_to_check=condition.hash)
    )
    return cache_pb._SetIfHashRequest(
        cache_key=a.value(key, "key"),
        cache_body=a.value(value, "value"),
        ttl_milliseconds=ttl_ms,
        **{condition.field: argument},
    )


def read_stored(response: Any) -> bool:
    return bool(response.WhichOneof("result") == "stored")
