from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class _CreateCacheRequest(_message.Message):
    __slots__ = ("cache_name",)
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    def __init__(self, cache_name: _Optional[str] = ...) -> None: ...

class _CreateCacheResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _DeleteCacheRequest(_message.Message):
    __slots__ = ("cache_name",)
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    def __init__(self, cache_name: _Optional[str] = ...) -> None: ...

class _DeleteCacheResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _FlushCacheRequest(_message.Message):
    __slots__ = ("cache_name",)
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    def __init__(self, cache_name: _Optional[str] = ...) -> None: ...

class _FlushCacheResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _ListCachesRequest(_message.Message):
    __slots__ = ("next_token",)
    NEXT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    next_token: str
    def __init__(self, next_token: _Optional[str] = ...) -> None: ...

class _ListCachesResponse(_message.Message):
    __slots__ = ("cache", "next_token")
    CACHE_FIELD_NUMBER: _ClassVar[int]
    NEXT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    cache: _containers.RepeatedCompositeFieldContainer[_Cache]
    next_token: str
    def __init__(self, cache: _Optional[_Iterable[_Union[_Cache, _Mapping]]] = ..., next_token: _Optional[str] = ...) -> None: ...

class _Cache(_message.Message):
    __slots__ = ("cache_name", "cache_limits", "topic_limits")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    CACHE_LIMITS_FIELD_NUMBER: _ClassVar[int]
    TOPIC_LIMITS_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    cache_limits: _CacheLimits
    topic_limits: _TopicLimits
    def __init__(self, cache_name: _Optional[str] = ..., cache_limits: _Optional[_Union[_CacheLimits, _Mapping]] = ..., topic_limits: _Optional[_Union[_TopicLimits, _Mapping]] = ...) -> None: ...

class _CacheLimits(_message.Message):
    __slots__ = ("max_traffic_rate", "max_throughput_kbps", "max_item_size_kb", "max_ttl_seconds")
    MAX_TRAFFIC_RATE_FIELD_NUMBER: _ClassVar[int]
    MAX_THROUGHPUT_KBPS_FIELD_NUMBER: _ClassVar[int]
    MAX_ITEM_SIZE_KB_FIELD_NUMBER: _ClassVar[int]
    MAX_TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    max_traffic_rate: int
    max_throughput_kbps: int
    max_item_size_kb: int
    max_ttl_seconds: int
    def __init__(self, max_traffic_rate: _Optional[int] = ..., max_throughput_kbps: _Optional[int] = ..., max_item_size_kb: _Optional[int] = ..., max_ttl_seconds: _Optional[int] = ...) -> None: ...

class _TopicLimits(_message.Message):
    __slots__ = ("max_publish_rate", "max_subscription_count", "max_publish_message_size_kb")
    MAX_PUBLISH_RATE_FIELD_NUMBER: _ClassVar[int]
    MAX_SUBSCRIPTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_PUBLISH_MESSAGE_SIZE_KB_FIELD_NUMBER: _ClassVar[int]
    max_publish_rate: int
    max_subscription_count: int
    max_publish_message_size_kb: int
    def __init__(self, max_publish_rate: _Optional[int] = ..., max_subscription_count: _Optional[int] = ..., max_publish_message_size_kb: _Optional[int] = ...) -> None: ...

class _CreateSigningKeyRequest(_message.Message):
    __slots__ = ("ttl_minutes",)
    TTL_MINUTES_FIELD_NUMBER: _ClassVar[int]
    ttl_minutes: int
    def __init__(self, ttl_minutes: _Optional[int] = ...) -> None: ...

class _CreateSigningKeyResponse(_message.Message):
    __slots__ = ("key", "expires_at")
    KEY_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    key: str
    expires_at: int
    def __init__(self, key: _Optional[str] = ..., expires_at: _Optional[int] = ...) -> None: ...

class _RevokeSigningKeyRequest(_message.Message):
    __slots__ = ("key_id",)
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    def __init__(self, key_id: _Optional[str] = ...) -> None: ...

class _RevokeSigningKeyResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _SigningKey(_message.Message):
    __slots__ = ("key_id", "expires_at")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    expires_at: int
    def __init__(self, key_id: _Optional[str] = ..., expires_at: _Optional[int] = ...) -> None: ...

class _ListSigningKeysRequest(_message.Message):
    __slots__ = ("next_token",)
    NEXT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    next_token: str
    def __init__(self, next_token: _Optional[str] = ...) -> None: ...

class _ListSigningKeysResponse(_message.Message):
    __slots__ = ("signing_key", "next_token")
    SIGNING_KEY_FIELD_NUMBER: _ClassVar[int]
    NEXT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    signing_key: _containers.RepeatedCompositeFieldContainer[_SigningKey]
    next_token: str
    def __init__(self, signing_key: _Optional[_Iterable[_Union[_SigningKey, _Mapping]]] = ..., next_token: _Optional[str] = ...) -> None: ...
