"""Value size limit, against a server started with --max-value-size 1MiB, and
the request size limit of a server with the defaults."""

from momento import CacheClient
from momento.errors import MomentoErrorCode
from momento.errors.exceptions import LimitExceededMessageWrapper
from momento.responses import CacheGet, CacheSet, CreateCache

VALUE_LIMIT_BYTES = 1024 * 1024


def test_value_over_the_limit_is_rejected(small_limit_client: CacheClient) -> None:
    small_limit_client.create_cache("py-size-limit-over")

    stored = small_limit_client.set("py-size-limit-over", "big", b"x" * (VALUE_LIMIT_BYTES + 1))

    assert isinstance(stored, CacheSet.Error), stored
    assert stored.error_code == MomentoErrorCode.LIMIT_EXCEEDED_ERROR
    # The SDK picks this wording from the `err: item_size_limit_exceeded` trailer.
    assert stored.inner_exception.message_wrapper == (
        LimitExceededMessageWrapper.ITEM_SIZE_LIMIT_EXCEEDED.value
    )
    assert isinstance(small_limit_client.get("py-size-limit-over", "big"), CacheGet.Miss)


def test_a_set_of_5_3_mb_is_refused_as_limit_exceeded(client: CacheClient, cache_name: str) -> None:
    # This SDK caps what it sends (about 5 MB) and refuses the request
    # itself, as it would against the Momento service; nothing is stored.
    stored = client.set(cache_name, "huge", b"z" * 5_300_000)

    assert isinstance(stored, CacheSet.Error), stored
    assert stored.error_code == MomentoErrorCode.LIMIT_EXCEEDED_ERROR
    assert isinstance(client.get(cache_name, "huge"), CacheGet.Miss)


def test_value_under_the_limit_is_stored(small_limit_client: CacheClient) -> None:
    created = small_limit_client.create_cache("py-size-limit-under")
    assert isinstance(created, CreateCache.Success), created
    value = b"y" * (VALUE_LIMIT_BYTES // 2)

    assert isinstance(
        small_limit_client.set("py-size-limit-under", "half", value), CacheSet.Success
    )

    got = small_limit_client.get("py-size-limit-under", "half")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_bytes == value
