"""GetBatch and SetBatch (server streams) over raw gRPC; not in the Python SDK."""

from momento_wire_types import cacheclient_pb2 as pb


def test_set_batch_answers_ok_per_item_and_stores_them(scs, cache_metadata) -> None:
    items = [pb._SetRequest(cache_key=k, cache_body=k * 2, ttl_milliseconds=60_000)
             for k in (b"a", b"b", b"c")]  # fmt: skip

    answers = list(scs.SetBatch(pb._SetBatchRequest(items=items), metadata=cache_metadata))

    assert [answer.result for answer in answers] == [pb.Ok] * 3
    for key in (b"a", b"b", b"c"):
        got = scs.Get(pb._GetRequest(cache_key=key), metadata=cache_metadata)
        assert (got.result, got.cache_body) == (pb.Hit, key * 2)


def test_get_batch_answers_hits_and_misses_in_request_order(scs, cache_metadata) -> None:
    for key in (b"a", b"b"):
        request = pb._SetRequest(cache_key=key, cache_body=b"v-" + key, ttl_milliseconds=60_000)
        scs.Set(request, metadata=cache_metadata)

    keys = [b"a", b"missing", b"b", b"a"]
    request = pb._GetBatchRequest(items=[pb._GetRequest(cache_key=k) for k in keys])
    answers = list(scs.GetBatch(request, metadata=cache_metadata))

    assert [(a.result, a.cache_body) for a in answers] == [
        (pb.Hit, b"v-a"),
        (pb.Miss, b""),
        (pb.Hit, b"v-b"),
        (pb.Hit, b"v-a"),
    ]
