"""SetIf over raw gRPC: the Python SDK has no set_if_* calls, the JS one does.

Each condition is tried once where it must store and once where it must
not; the stored value is checked afterwards either way.
"""

import pytest
from momento_wire_types import cacheclient_pb2 as pb

OLD = b"old"
NEW = b"new"
OTHER = b"other"

# condition field, value_to_check (None: the condition has none), value before, stores?
CASES = {
    "present-stores": ("present", None, OLD, True),
    "present-absent": ("present", None, None, False),
    "present-and-not-equal-stores": ("present_and_not_equal", OTHER, OLD, True),
    "present-and-not-equal-equal": ("present_and_not_equal", OLD, OLD, False),
    "present-and-not-equal-absent": ("present_and_not_equal", OTHER, None, False),
    "absent-stores": ("absent", None, None, True),
    "absent-present": ("absent", None, OLD, False),
    "equal-stores": ("equal", OLD, OLD, True),
    "equal-differs": ("equal", OTHER, OLD, False),
    "equal-absent": ("equal", OLD, None, False),
    "absent-or-equal-absent": ("absent_or_equal", OTHER, None, True),
    "absent-or-equal-equal": ("absent_or_equal", OLD, OLD, True),
    "absent-or-equal-differs": ("absent_or_equal", OTHER, OLD, False),
    "not-equal-absent": ("not_equal", OLD, None, True),
    "not-equal-differs": ("not_equal", OTHER, OLD, True),
    "not-equal-equal": ("not_equal", OLD, OLD, False),
}


@pytest.mark.parametrize(("field", "check", "before", "stores"), CASES.values(), ids=CASES.keys())
def test_set_if(scs, cache_metadata, field, check, before, stores) -> None:
    if before is not None:
        set_request = pb._SetRequest(cache_key=b"k", cache_body=before, ttl_milliseconds=60_000)
        scs.Set(set_request, metadata=cache_metadata)

    request = pb._SetIfRequest(cache_key=b"k", cache_body=NEW, ttl_milliseconds=60_000)
    if check is None:
        getattr(request, field).SetInParent()
    else:
        getattr(request, field).value_to_check = check
    answer = scs.SetIf(request, metadata=cache_metadata)

    assert answer.WhichOneof("result") == ("stored" if stores else "not_stored")
    after = scs.Get(pb._GetRequest(cache_key=b"k"), metadata=cache_metadata)
    expected = NEW if stores else before
    if expected is None:
        assert after.result == pb.Miss
    else:
        assert (after.result, after.cache_body) == (pb.Hit, expected)


def test_set_if_not_exists_rpc(scs, cache_metadata) -> None:
    request = pb._SetIfNotExistsRequest(cache_key=b"k", cache_body=OLD, ttl_milliseconds=60_000)
    assert scs.SetIfNotExists(request, metadata=cache_metadata).WhichOneof("result") == "stored"

    request.cache_body = NEW
    answer = scs.SetIfNotExists(request, metadata=cache_metadata)
    assert answer.WhichOneof("result") == "not_stored"
    assert scs.Get(pb._GetRequest(cache_key=b"k"), metadata=cache_metadata).cache_body == OLD
