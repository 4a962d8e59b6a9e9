from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ListKeysRequest(_message.Message):
    __slots__ = ("cache_name", "prefix", "cursor", "limit")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    prefix: bytes
    cursor: bytes
    limit: int
    def __init__(self, cache_name: _Optional[str] = ..., prefix: _Optional[bytes] = ..., cursor: _Optional[bytes] = ..., limit: _Optional[int] = ...) -> None: ...

class ListKeysResponse(_message.Message):
    __slots__ = ("keys", "next_cursor")
    KEYS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedScalarFieldContainer[bytes]
    next_cursor: bytes
    def __init__(self, keys: _Optional[_Iterable[bytes]] = ..., next_cursor: _Optional[bytes] = ...) -> None: ...
