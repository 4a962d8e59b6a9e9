"""Status codes and `err` trailers as the SDKs read them, checked on the wire.

These paths are invisible through the SDKs (they validate the cache name
client-side, never call Ping or unimplemented RPCs) or are only seen there
after translation.
"""

import uuid

import grpc
import pytest
from momento_wire_types import cacheclient_pb2 as pb
from momento_wire_types import cacheclient_pb2_grpc
from momento_wire_types import controlclient_pb2 as control_pb
from momento_wire_types import controlclient_pb2_grpc as control_grpc


def raw_call(channel: grpc.Channel, path: str):
    # An empty body is a valid encoding of every empty-or-default request.
    return channel.unary_unary(
        path, request_serializer=lambda b: b, response_deserializer=lambda b: b
    )


def rpc_error(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as raised:
        call(*args, **kwargs)
    return raised.value


def err_trailer(error: grpc.RpcError) -> str | None:
    return dict(error.trailing_metadata() or ()).get("err")


def test_data_call_without_cache_header_is_invalid_argument(channel) -> None:
    error = rpc_error(raw_call(channel, "/cache_client.Scs/Get"), b"")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_data_call_with_empty_cache_header_is_invalid_argument(channel) -> None:
    get = raw_call(channel, "/cache_client.Scs/Get")
    error = rpc_error(get, b"", metadata=[("cache", ""), ("authorization", "")])
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_data_call_to_unknown_cache_is_not_found(scs) -> None:
    metadata = [("cache", f"py-missing-{uuid.uuid4().hex[:12]}"), ("authorization", "")]
    error = rpc_error(scs.Get, pb._GetRequest(cache_key=b"k"), metadata=metadata)
    assert error.code() == grpc.StatusCode.NOT_FOUND
    # @gomomento/sdk reads these two `err` values as Momento Storage errors
    # (STORE_NOT_FOUND_ERROR, STORE_ITEM_NOT_FOUND_ERROR), not a missing cache.
    assert err_trailer(error) not in ("store_not_found", "item_not_found")


def test_create_existing_cache_is_already_exists(channel, cache_name) -> None:
    control = control_grpc.ScsControlStub(channel)
    request = control_pb._CreateCacheRequest(cache_name=cache_name)
    error = rpc_error(control.CreateCache, request, metadata=[("authorization", "")])
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS


def test_increment_of_non_integer_is_failed_precondition(scs, cache_metadata) -> None:
    set_request = pb._SetRequest(cache_key=b"k", cache_body=b"abc", ttl_milliseconds=60_000)
    scs.Set(set_request, metadata=cache_metadata)
    request = pb._IncrementRequest(cache_key=b"k", amount=1, ttl_milliseconds=60_000)
    error = rpc_error(scs.Increment, request, metadata=cache_metadata)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_oversized_value_is_resource_exhausted_with_trailer(small_limit_server) -> None:
    host, port = small_limit_server
    cache_name = f"py-wire-limit-{uuid.uuid4().hex[:12]}"
    with grpc.insecure_channel(f"{host}:{port}") as channel:
        control_grpc.ScsControlStub(channel).CreateCache(
            control_pb._CreateCacheRequest(cache_name=cache_name)
        )
        oversized = b"x" * (1024 * 1024 + 1)
        request = pb._SetRequest(cache_key=b"big", cache_body=oversized, ttl_milliseconds=60_000)
        set_call = cacheclient_pb2_grpc.ScsStub(channel).Set
        error = rpc_error(set_call, request, metadata=[("cache", cache_name)])
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert err_trailer(error) == "item_size_limit_exceeded"


def test_unimplemented_rpc_is_unimplemented(channel, cache_name) -> None:
    # Momento's webhooks are not served: the SDKs read this status.
    put = raw_call(channel, "/cache_client.webhook.Webhook/PutWebhook")
    error = rpc_error(put, b"", metadata=[("cache", cache_name)])
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "Webhook/PutWebhook" in error.details()


def test_ping_answers_empty(channel) -> None:
    assert raw_call(channel, "/cache_client.Ping/Ping")(b"") == b""
