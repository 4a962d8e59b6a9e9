"""Error mapping: every gRPC status, with and without each `err` trailer, and
the same failure handed up by protosocket."""

from __future__ import annotations

import grpc
import pytest

import jiffy
from jiffy._exceptions import StatusError, error_from_status, queue_timeout
from jiffy._route import status_of


class FakeRpcError(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str = "", err: str | None = None):
        self._code, self._details = code, details
        self._trailers = (("err", err),) if err is not None else ()

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailers


EXPECTED_CLASS = {
    grpc.StatusCode.UNAVAILABLE: jiffy.ConnectionError,
    grpc.StatusCode.DEADLINE_EXCEEDED: jiffy.TimeoutError,
    grpc.StatusCode.UNAUTHENTICATED: jiffy.AuthenticationError,
    grpc.StatusCode.PERMISSION_DENIED: jiffy.PermissionError,
    grpc.StatusCode.NOT_FOUND: jiffy.NotFoundError,
    grpc.StatusCode.ALREADY_EXISTS: jiffy.AlreadyExistsError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: jiffy.LimitExceededError,
    grpc.StatusCode.INVALID_ARGUMENT: jiffy.InvalidArgumentError,
    grpc.StatusCode.OUT_OF_RANGE: jiffy.InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: jiffy.WrongTypeError,
    grpc.StatusCode.INTERNAL: jiffy.ServerError,
    grpc.StatusCode.UNKNOWN: jiffy.ServerError,
    grpc.StatusCode.UNIMPLEMENTED: jiffy.ServerError,
    grpc.StatusCode.DATA_LOSS: jiffy.ServerError,
    grpc.StatusCode.ABORTED: jiffy.ServerError,
    grpc.StatusCode.CANCELLED: jiffy.ServerError,
}
REASONS = [
    None,
    "store_not_found",
    "store_already_exists",
    "item_not_found",
    "item_size_limit_exceeded",
    "element_size_limit_exceeded",
    "request_size_limit_exceeded",
    "operations_rate_limit_exceeded",
    "throughput_rate_limit_exceeded",
]


def translate(
    code: grpc.StatusCode, err: str | None = None, cache_call: bool = False
) -> jiffy.CacheError:
    return error_from_status(
        status_of(FakeRpcError(code, "detail text", err)),
        call="Get",
        deadline=1.5,
        target="127.0.0.1:1",
        cache_call=cache_call,
    )


def test_every_status_is_mapped() -> None:
    assert set(EXPECTED_CLASS) == set(grpc.StatusCode) - {grpc.StatusCode.OK}


@pytest.mark.parametrize("reason", REASONS)
@pytest.mark.parametrize("code", list(EXPECTED_CLASS))
@pytest.mark.parametrize("cache_call", [False, True])
def test_status_and_reason_give_class_and_attributes(
    code: grpc.StatusCode, reason: str | None, cache_call: bool
) -> None:
    error = translate(code, reason, cache_call)
    expected = EXPECTED_CLASS[code]
    if code is grpc.StatusCode.NOT_FOUND and (
        reason == "store_not_found" or (reason is None and cache_call)
    ):
        expected = jiffy.CacheNotFoundError
    assert type(error) is expected
    assert isinstance(error, jiffy.CacheError)
    assert error.status == code.name
    assert error.reason == reason
    assert str(error).startswith(f"Get failed: {code.name}: detail text")


def test_item_not_found_is_not_a_missing_cache() -> None:
    assert type(translate(grpc.StatusCode.NOT_FOUND, "item_not_found", True)) is jiffy.NotFoundError


def test_messages_name_what_to_change() -> None:
    assert "raise `deadline`" in str(translate(grpc.StatusCode.DEADLINE_EXCEEDED))
    assert "1.5 s" in str(translate(grpc.StatusCode.DEADLINE_EXCEEDED))
    assert "127.0.0.1:1" in str(translate(grpc.StatusCode.UNAVAILABLE))
    assert "--max-value-size" in str(
        translate(grpc.StatusCode.RESOURCE_EXHAUSTED, "item_size_limit_exceeded")
    )
    assert "split the batch" in str(
        translate(grpc.StatusCode.RESOURCE_EXHAUSTED, "request_size_limit_exceeded")
    )
    queued = queue_timeout("Get", 2.0, 100)
    assert isinstance(queued, jiffy.TimeoutError)
    assert "max_concurrent_requests" in str(queued)


def test_errors_that_shadow_builtins_inherit_them() -> None:
    assert issubclass(jiffy.TimeoutError, TimeoutError)
    assert issubclass(jiffy.ConnectionError, ConnectionError)
    assert issubclass(jiffy.PermissionError, PermissionError)
    assert issubclass(jiffy.InvalidArgumentError, ValueError)
    error = jiffy.TimeoutError("Get failed", status="DEADLINE_EXCEEDED")
    assert (str(error), error.status) == ("Get failed", "DEADLINE_EXCEEDED")
    with pytest.raises(TimeoutError) as caught:  # the builtin, unqualified
        raise queue_timeout("Get", 2.0, 100)
    assert isinstance(caught.value, jiffy.CacheError)


def test_wrong_type_is_an_invalid_argument() -> None:
    assert issubclass(jiffy.WrongTypeError, jiffy.InvalidArgumentError)
    assert issubclass(jiffy.CacheNotFoundError, jiffy.NotFoundError)


def test_bytes_trailer_values_are_decoded() -> None:
    error = FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED)
    error._trailers = (("err", b"item_size_limit_exceeded"),)  # type: ignore[assignment]
    translated = error_from_status(
        status_of(error), call="Set", deadline=1, target="t", cache_call=True
    )
    assert translated.reason == "item_size_limit_exceeded"


@pytest.mark.parametrize("code", list(EXPECTED_CLASS), ids=lambda code: code.name)
@pytest.mark.parametrize("err", [None, "item_size_limit_exceeded"])
def test_a_failure_maps_alike_whatever_carried_it(code: grpc.StatusCode, err: str | None) -> None:
    over_grpc = translate(code, err, cache_call=True)
    failed = StatusError(code.name, "detail text", err, "protosocket")
    over_protosocket = error_from_status(
        failed, call="Get", deadline=1.5, target="127.0.0.1:1", cache_call=True
    )
    assert type(over_protosocket) is type(over_grpc)
    assert str(over_protosocket) == str(over_grpc)
    assert (over_protosocket.status, over_protosocket.reason) == (code.name, err)
