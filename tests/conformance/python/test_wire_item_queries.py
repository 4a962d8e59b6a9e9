"""KeysExist, ItemGetTtl, ItemGetType and UpdateTtl over raw gRPC.

The Python SDK does not expose these calls; the JS suite covers them
through its SDK.
"""

from momento_wire_types import cacheclient_pb2 as pb

MINUTE_MS = 60_000


def put(scs, metadata, key: bytes, ttl_ms: int = MINUTE_MS) -> None:
    request = pb._SetRequest(cache_key=key, cache_body=b"v", ttl_milliseconds=ttl_ms)
    assert scs.Set(request, metadata=metadata).result == pb.Ok


def remaining_ttl_ms(scs, metadata, key: bytes) -> int:
    answer = scs.ItemGetTtl(pb._ItemGetTtlRequest(cache_key=key), metadata=metadata)
    assert answer.WhichOneof("result") == "found"
    return answer.found.remaining_ttl_millis


def update_ttl(scs, metadata, key: bytes, **ttl_ms: int) -> str:
    answer = scs.UpdateTtl(pb._UpdateTtlRequest(cache_key=key, **ttl_ms), metadata=metadata)
    return answer.WhichOneof("result")


def test_keys_exist_answers_in_request_order(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"a")
    put(scs, cache_metadata, b"c")

    request = pb._KeysExistRequest(cache_keys=[b"a", b"b", b"c", b"a"])
    answer = scs.KeysExist(request, metadata=cache_metadata)

    assert list(answer.exists) == [True, False, True, True]


def test_item_get_ttl_is_within_the_set_ttl(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"k", ttl_ms=30_000)
    assert 25_000 < remaining_ttl_ms(scs, cache_metadata, b"k") <= 30_000


def test_item_get_ttl_of_missing_key(scs, cache_metadata) -> None:
    answer = scs.ItemGetTtl(pb._ItemGetTtlRequest(cache_key=b"none"), metadata=cache_metadata)
    assert answer.WhichOneof("result") == "missing"


def test_item_get_type_of_scalar(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"k")
    answer = scs.ItemGetType(pb._ItemGetTypeRequest(cache_key=b"k"), metadata=cache_metadata)
    assert answer.WhichOneof("result") == "found"
    assert answer.found.item_type == pb._ItemGetTypeResponse.SCALAR


def test_item_get_type_of_missing_key(scs, cache_metadata) -> None:
    answer = scs.ItemGetType(pb._ItemGetTypeRequest(cache_key=b"none"), metadata=cache_metadata)
    assert answer.WhichOneof("result") == "missing"


def test_overwrite_ttl_always_sets(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"k")
    assert update_ttl(scs, cache_metadata, b"k", overwrite_to_milliseconds=5_000) == "set"
    assert remaining_ttl_ms(scs, cache_metadata, b"k") <= 5_000


def test_increase_ttl_sets_only_when_longer(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"k")

    assert update_ttl(scs, cache_metadata, b"k", increase_to_milliseconds=1_000) == "not_set"
    assert remaining_ttl_ms(scs, cache_metadata, b"k") > 50_000

    assert update_ttl(scs, cache_metadata, b"k", increase_to_milliseconds=120_000) == "set"
    assert remaining_ttl_ms(scs, cache_metadata, b"k") > MINUTE_MS


def test_decrease_ttl_sets_only_when_shorter(scs, cache_metadata) -> None:
    put(scs, cache_metadata, b"k")

    assert update_ttl(scs, cache_metadata, b"k", decrease_to_milliseconds=120_000) == "not_set"
    assert remaining_ttl_ms(scs, cache_metadata, b"k") <= MINUTE_MS

    assert update_ttl(scs, cache_metadata, b"k", decrease_to_milliseconds=2_000) == "set"
    assert remaining_ttl_ms(scs, cache_metadata, b"k") <= 2_000


def test_update_ttl_of_missing_key_is_missing(scs, cache_metadata) -> None:
    for ttl in ("overwrite", "increase", "decrease"):
        result = update_ttl(scs, cache_metadata, b"none", **{f"{ttl}_to_milliseconds": 5_000})
        assert result == "missing", ttl
