# Generated from _async_client.py by scripts/generate_sync.py: do not edit.
"""CacheClient: the blocking client (grpc, thread-safe)."""

from __future__ import annotations

from collections.abc import Iterable
from types import TracebackType
from typing import Literal

from jiffy import _calls as c
from jiffy import _hash as h
from jiffy import _tokens as t
from jiffy._calls import FieldValues, Key, SetIf, Ttl, Value
from jiffy._config import Config
from jiffy._endpoint import Endpoint
from jiffy._hash import SetIfHash
from jiffy._sync_dictionaries import SyncDictionaryCalls
from jiffy._sync_leaderboard import SyncLeaderboardCalls
from jiffy._sync_lists import SyncListCalls
from jiffy._sync_route import SyncRoute
from jiffy._sync_sets import SyncSetCalls
from jiffy._sync_signing_keys import SyncSigningKeyCalls
from jiffy._sync_sorted_sets import SyncSortedSetCalls
from jiffy._sync_topics import SyncTopicCalls
from jiffy._sync_webhooks import SyncWebhookCalls
from jiffy._tokens import ApiKey, DisposableToken, Permissions


class CacheClient(
    SyncDictionaryCalls,
    SyncListCalls,
    SyncSetCalls,
    SyncSortedSetCalls,
    SyncLeaderboardCalls,
    SyncTopicCalls,
    SyncWebhookCalls,
    SyncSigningKeyCalls,
):
    """A cache client; every call may raise a jiffy.CacheError.

    `endpoint` defaults to `Endpoint.from_env()`, `config` to `Config()`, the
    defaults of sdk/spec.json (the same in both SDKs). Data calls use `cache=`
    when given, else `default_cache`. Durations are seconds (float) or
    timedelta. The collection calls (dictionary_*, list_*, set_*,
    sorted_set_*) are in one module per type beside this one, the topic
    calls (publish, subscribe) in _sync_topics.py, leaderboards
    (`leaderboard(name)`) in _sync_leaderboard.py, webhooks in
    _sync_webhooks.py, signing keys in _sync_signing_keys.py.
    """

    def __init__(
        self,
        endpoint: Endpoint | None = None,
        config: Config | None = None,
        *,
        default_cache: str | None = None,
    ) -> None:
        self.endpoint = endpoint or Endpoint.from_env()
        # The defaults object itself, not a preset: one set of defaults, so a
        # client given no config and `Config()` can never differ again.
        self.config = config or Config()
        self.default_cache = default_cache
        # Every call goes through the route, which picks what carries it.
        self._route = SyncRoute(self.endpoint, self.config)
        self._executor = self._route.executor
        self._default_ttl_ms = round(self.config.default_ttl * 1000)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.endpoint!r}, {self.config!r})"

    def __enter__(self) -> CacheClient:
        if self.config.eager_connect_timeout is not None:
            try:
                self.connect()
            except BaseException:
                # `with` will not call __exit__: close the channels here, or
                # grpc would go on reconnecting in the background.
                self.close()
                raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def connect(self) -> None:
        """Open every channel now, or raise ConnectionError naming the cause: at
        once for an unknown host or a TLS mismatch, after 1 s of refused
        connections, after `eager_connect_timeout` when the server never answers.
        Calling it again tries again."""
        self._route.connect()

    def close(self) -> None:
        """Close the channels; calls in flight are cancelled."""
        self._route.close()

    @property
    def transport(self) -> Literal["grpc", "protosocket"]:
        """What carries get, get_str, set and delete: "protosocket" or "grpc";
        every other call is gRPC. Under protosocket_endpoint="auto" it is
        "grpc" until the client has connected and found the server's port."""
        return self._route.transport

    @property
    def in_flight_high_water(self) -> int:
        """The most calls this client ever had on the wire at once."""
        return self._executor.limiter.high_water

    def in_flight_limit(self) -> int:
        """The cap on calls in flight now (0 = none): max_concurrent_requests,
        or under "auto" the limit it chose."""
        return self._executor.in_flight_limit()

    def in_flight_limit_history(self) -> list[tuple[float, int]]:
        """(seconds since the client was built, limit) at each change of the
        limit, at most one per 0.1 s, the last 1000; one entry for a fixed cap."""
        return self._executor.limiter.history()

    # Data plane.

    def get(self, key: Key, *, cache: str | None = None) -> bytes | None:
        """The value of `key`, or None on a miss."""
        value: bytes | None = self._route.call(c.GET, (c.as_bytes(key),), self._cache_name(cache))
        return value

    def get_str(self, key: Key, *, cache: str | None = None, encoding: str = "utf-8") -> str | None:
        """The value of `key` decoded as text, or None on a miss."""
        value = self.get(key, cache=cache)
        return None if value is None else value.decode(encoding)

    def set(
        self, key: Key, value: Value, *, ttl: Ttl | None = None, cache: str | None = None
    ) -> None:
        """Store `value` under `key` for `ttl` (default: the config's default_ttl)."""
        arguments = (c.as_bytes(key), c.as_bytes(value), self._ttl(ttl))
        self._route.call(c.SET, arguments, self._cache_name(cache))

    def delete(self, key: Key, *, cache: str | None = None) -> None:
        """Remove `key`; deleting a missing key is not an error."""
        self._route.call(c.DELETE, (c.as_bytes(key),), self._cache_name(cache))

    def set_if(
        self,
        key: Key,
        value: Value,
        condition: SetIf,
        *,
        ttl: Ttl | None = None,
        cache: str | None = None,
    ) -> bool:
        """Store `value` if `condition` (e.g. `SetIf.equal(b"old")`) holds; True if stored."""
        request = c.set_if_request(key, value, condition, self._ttl(ttl))
        return c.read_stored(self._route.call(c.SET_IF, request, self._cache_name(cache)))

    def set_if_absent(
        self, key: Key, value: Value, *, ttl: Ttl | None = None, cache: str | None = None
    ) -> bool:
        """Store `value` only if `key` holds nothing; True if stored."""
        request = c.SetIfNotExistsRequest(
            cache_key=c.as_bytes(key), cache_body=c.as_bytes(value), ttl_milliseconds=self._ttl(ttl)
        )
        response = self._route.call(c.SET_IF_NOT_EXISTS, request, self._cache_name(cache))
        return c.read_stored(response)

    def increment(
        self, key: Key, amount: int = 1, *, ttl: Ttl | None = None, cache: str | None = None
    ) -> int:
        """Add `amount` to the integer at `key` (a missing key starts at 0); the new value."""
        request = c.IncrementRequest(
            cache_key=c.as_bytes(key), amount=amount, ttl_milliseconds=self._ttl(ttl)
        )
        response = self._route.call(c.INCREMENT, request, self._cache_name(cache))
        return int(response.value)

    def keys_exist(self, keys: Iterable[Key], *, cache: str | None = None) -> list[bool]:
        """For each key, whether it holds a value."""
        request = c.KeysExistRequest(cache_keys=[c.as_bytes(key) for key in keys])
        response = self._route.call(c.KEYS_EXIST, request, self._cache_name(cache))
        return list(response.exists)

    def update_ttl(
        self, key: Key, ttl: Ttl, mode: str = "overwrite", *, cache: str | None = None
    ) -> bool:
        """Change the TTL of `key`; mode overwrite, increase or decrease. True if changed."""
        request = c.update_ttl_request(key, c.ttl_ms(ttl, self._default_ttl_ms), mode)
        response = self._route.call(c.UPDATE_TTL, request, self._cache_name(cache))
        return c.read_ttl_updated(response)

    def get_ttl(self, key: Key, *, cache: str | None = None) -> float | None:
        """Seconds `key` has left, or None when it holds nothing."""
        request = c.ItemGetTtlRequest(cache_key=c.as_bytes(key))
        return c.read_ttl(self._route.call(c.ITEM_GET_TTL, request, self._cache_name(cache)))

    def get_type(self, key: Key, *, cache: str | None = None) -> str | None:
        """The item type ("scalar", ...) of `key`, or None when it holds nothing."""
        request = c.ItemGetTypeRequest(cache_key=c.as_bytes(key))
        response = self._route.call(c.ITEM_GET_TYPE, request, self._cache_name(cache))
        return c.read_type(response)

    def get_many(self, keys: Iterable[Key], *, cache: str | None = None) -> list[bytes | None]:
        """The values of `keys` in order, None for each miss."""
        request = c.get_batch_request(keys)
        responses = self._route.call(c.GET_BATCH, request, self._cache_name(cache))
        return [c.read_get(response) for response in responses]

    def set_many(
        self,
        items: FieldValues,
        *,
        ttl: Ttl | None = None,
        cache: str | None = None,
    ) -> None:
        """Store every (key, value) pair; all or none are written."""
        request = c.set_batch_request(items, self._ttl(ttl))
        self._route.call(c.SET_BATCH, request, self._cache_name(cache))

    def get_with_hash(self, key: Key, *, cache: str | None = None) -> tuple[bytes, bytes] | None:
        """(value, hash) of `key`, or None on a miss; pass the hash to `set_if_hash`."""
        request = h.get_with_hash_request(key)
        response = self._route.call(c.GET_WITH_HASH, request, self._cache_name(cache))
        return h.read_with_hash(response)

    def set_if_hash(
        self,
        key: Key,
        value: Value,
        condition: SetIfHash,
        *,
        ttl: Ttl | None = None,
        cache: str | None = None,
    ) -> bool:
        """Store `value` if `condition` (e.g. `SetIfHash.present_and_hash_equal(hash)`,
        with a hash from `get_with_hash`) holds; True if stored."""
        request = h.set_if_hash_request(key, value, condition, self._ttl(ttl))
        response = self._route.call(c.SET_IF_HASH, request, self._cache_name(cache))
        return h.read_stored(response)

    def ping(self) -> None:
        """One round trip to the server."""
        self._route.control(c.PING, c.PING_REQUEST)

    # Control plane.

    def create_cache(self, name: str) -> None:
        """Create cache `name`; AlreadyExistsError when it exists."""
        self._route.control(c.CREATE_CACHE, c.CreateCacheRequest(cache_name=name))

    def delete_cache(self, name: str) -> None:
        """Delete cache `name` and its items; CacheNotFoundError when it does not exist."""
        self._route.control(c.DELETE_CACHE, c.DeleteCacheRequest(cache_name=name))

    def flush_cache(self, name: str) -> None:
        """Remove every item of cache `name`."""
        self._route.control(c.FLUSH_CACHE, c.FlushCacheRequest(cache_name=name))

    def list_caches(self) -> list[str]:
        """The names of all caches."""
        response = self._route.control(c.LIST_CACHES, c.LIST_CACHES_REQUEST)
        return [cache.cache_name for cache in response.cache]

    # Token vending: over gRPC whatever carries get and set, never retried
    # (each call mints another token), the client's own token inside the
    # message as the official SDKs send it (docs/AUTH.md).

    def generate_disposable_token(
        self, permissions: Permissions, expires_in: Ttl, *, token_id: str | None = None
    ) -> DisposableToken:
        """Mint a token of `permissions` ("super_user", "all_data_read_write"
        or a list of CachePermission and TopicPermission) that expires in
        `expires_in` (whole seconds, at most an hour); `token_id` is the
        publisher subscribers see on its messages. Needs an admin or super
        user token; PermissionError otherwise."""
        request = t.disposable_token_request(self._own_token, permissions, expires_in, token_id)
        return t.read_disposable_token(self._route.control(c.GENERATE_DISPOSABLE_TOKEN, request))

    def generate_api_key(self, permissions: Permissions, expires_in: Ttl | None = None) -> ApiKey:
        """Mint an api key of `permissions` (as generate_disposable_token's)
        that expires in `expires_in` whole seconds (None: never), with the
        refresh token that renews it."""
        request = t.api_key_request(self._own_token, permissions, expires_in)
        return t.read_api_key(self._route.control(c.GENERATE_API_TOKEN, request))

    def refresh_api_key(self, refresh_token: str) -> ApiKey:
        """Renew this client's api key with its `refresh_token`: a new key
        and refresh token of the same permissions and lifetime."""
        request = t.refresh_request(self._own_token, refresh_token)
        return t.read_api_key(self._route.control(c.REFRESH_API_TOKEN, request))

    @property
    def _own_token(self) -> str:
        return self.endpoint.api_key or ""
