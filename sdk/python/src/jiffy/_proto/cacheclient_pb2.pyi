from jiffy._proto import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ECacheResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    Invalid: _ClassVar[ECacheResult]
    Ok: _ClassVar[ECacheResult]
    Hit: _ClassVar[ECacheResult]
    Miss: _ClassVar[ECacheResult]
Invalid: ECacheResult
Ok: ECacheResult
Hit: ECacheResult
Miss: ECacheResult

class _GetRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: _Optional[bytes] = ...) -> None: ...

class _GetResponse(_message.Message):
    __slots__ = ("result", "cache_body", "message")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    result: ECacheResult
    cache_body: bytes
    message: str
    def __init__(self, result: _Optional[_Union[ECacheResult, str]] = ..., cache_body: _Optional[bytes] = ..., message: _Optional[str] = ...) -> None: ...

class _GetBatchRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[_GetRequest]
    def __init__(self, items: _Optional[_Iterable[_Union[_GetRequest, _Mapping]]] = ...) -> None: ...

class _SetRequest(_message.Message):
    __slots__ = ("cache_key", "cache_body", "ttl_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    cache_body: bytes
    ttl_milliseconds: int
    def __init__(self, cache_key: _Optional[bytes] = ..., cache_body: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ...) -> None: ...

class _SetResponse(_message.Message):
    __slots__ = ("result", "message")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    result: ECacheResult
    message: str
    def __init__(self, result: _Optional[_Union[ECacheResult, str]] = ..., message: _Optional[str] = ...) -> None: ...

class _SetBatchRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[_SetRequest]
    def __init__(self, items: _Optional[_Iterable[_Union[_SetRequest, _Mapping]]] = ...) -> None: ...

class _SetIfRequest(_message.Message):
    __slots__ = ("cache_key", "cache_body", "ttl_milliseconds", "present", "present_and_not_equal", "absent", "equal", "absent_or_equal", "not_equal")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    PRESENT_FIELD_NUMBER: _ClassVar[int]
    PRESENT_AND_NOT_EQUAL_FIELD_NUMBER: _ClassVar[int]
    ABSENT_FIELD_NUMBER: _ClassVar[int]
    EQUAL_FIELD_NUMBER: _ClassVar[int]
    ABSENT_OR_EQUAL_FIELD_NUMBER: _ClassVar[int]
    NOT_EQUAL_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    cache_body: bytes
    ttl_milliseconds: int
    present: _common_pb2.Present
    present_and_not_equal: _common_pb2.PresentAndNotEqual
    absent: _common_pb2.Absent
    equal: _common_pb2.Equal
    absent_or_equal: _common_pb2.AbsentOrEqual
    not_equal: _common_pb2.NotEqual
    def __init__(self, cache_key: _Optional[bytes] = ..., cache_body: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ..., present: _Optional[_Union[_common_pb2.Present, _Mapping]] = ..., present_and_not_equal: _Optional[_Union[_common_pb2.PresentAndNotEqual, _Mapping]] = ..., absent: _Optional[_Union[_common_pb2.Absent, _Mapping]] = ..., equal: _Optional[_Union[_common_pb2.Equal, _Mapping]] = ..., absent_or_equal: _Optional[_Union[_common_pb2.AbsentOrEqual, _Mapping]] = ..., not_equal: _Optional[_Union[_common_pb2.NotEqual, _Mapping]] = ...) -> None: ...

class _SetIfResponse(_message.Message):
    __slots__ = ("stored", "not_stored")
    class _Stored(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _NotStored(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    STORED_FIELD_NUMBER: _ClassVar[int]
    NOT_STORED_FIELD_NUMBER: _ClassVar[int]
    stored: _SetIfResponse._Stored
    not_stored: _SetIfResponse._NotStored
    def __init__(self, stored: _Optional[_Union[_SetIfResponse._Stored, _Mapping]] = ..., not_stored: _Optional[_Union[_SetIfResponse._NotStored, _Mapping]] = ...) -> None: ...

class _SetIfNotExistsRequest(_message.Message):
    __slots__ = ("cache_key", "cache_body", "ttl_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    cache_body: bytes
    ttl_milliseconds: int
    def __init__(self, cache_key: _Optional[bytes] = ..., cache_body: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ...) -> None: ...

class _SetIfNotExistsResponse(_message.Message):
    __slots__ = ("stored", "not_stored")
    class _Stored(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _NotStored(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    STORED_FIELD_NUMBER: _ClassVar[int]
    NOT_STORED_FIELD_NUMBER: _ClassVar[int]
    stored: _SetIfNotExistsResponse._Stored
    not_stored: _SetIfNotExistsResponse._NotStored
    def __init__(self, stored: _Optional[_Union[_SetIfNotExistsResponse._Stored, _Mapping]] = ..., not_stored: _Optional[_Union[_SetIfNotExistsResponse._NotStored, _Mapping]] = ...) -> None: ...

class _DeleteRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: _Optional[bytes] = ...) -> None: ...

class _DeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _KeysExistRequest(_message.Message):
    __slots__ = ("cache_keys",)
    CACHE_KEYS_FIELD_NUMBER: _ClassVar[int]
    cache_keys: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, cache_keys: _Optional[_Iterable[bytes]] = ...) -> None: ...

class _KeysExistResponse(_message.Message):
    __slots__ = ("exists",)
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    exists: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, exists: _Optional[_Iterable[bool]] = ...) -> None: ...

class _IncrementRequest(_message.Message):
    __slots__ = ("cache_key", "amount", "ttl_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    amount: int
    ttl_milliseconds: int
    def __init__(self, cache_key: _Optional[bytes] = ..., amount: _Optional[int] = ..., ttl_milliseconds: _Optional[int] = ...) -> None: ...

class _IncrementResponse(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class _UpdateTtlRequest(_message.Message):
    __slots__ = ("cache_key", "increase_to_milliseconds", "decrease_to_milliseconds", "overwrite_to_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    INCREASE_TO_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    DECREASE_TO_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    OVERWRITE_TO_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    increase_to_milliseconds: int
    decrease_to_milliseconds: int
    overwrite_to_milliseconds: int
    def __init__(self, cache_key: _Optional[bytes] = ..., increase_to_milliseconds: _Optional[int] = ..., decrease_to_milliseconds: _Optional[int] = ..., overwrite_to_milliseconds: _Optional[int] = ...) -> None: ...

class _UpdateTtlResponse(_message.Message):
    __slots__ = ("set", "not_set", "missing")
    class _Set(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _NotSet(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    SET_FIELD_NUMBER: _ClassVar[int]
    NOT_SET_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    set: _UpdateTtlResponse._Set
    not_set: _UpdateTtlResponse._NotSet
    missing: _UpdateTtlResponse._Missing
    def __init__(self, set: _Optional[_Union[_UpdateTtlResponse._Set, _Mapping]] = ..., not_set: _Optional[_Union[_UpdateTtlResponse._NotSet, _Mapping]] = ..., missing: _Optional[_Union[_UpdateTtlResponse._Missing, _Mapping]] = ...) -> None: ...

class _ItemGetTtlRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: _Optional[bytes] = ...) -> None: ...

class _ItemGetTtlResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("remaining_ttl_millis",)
        REMAINING_TTL_MILLIS_FIELD_NUMBER: _ClassVar[int]
        remaining_ttl_millis: int
        def __init__(self, remaining_ttl_millis: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ItemGetTtlResponse._Found
    missing: _ItemGetTtlResponse._Missing
    def __init__(self, found: _Optional[_Union[_ItemGetTtlResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ItemGetTtlResponse._Missing, _Mapping]] = ...) -> None: ...

class _ItemGetTypeRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: _Optional[bytes] = ...) -> None: ...

class _ItemGetTypeResponse(_message.Message):
    __slots__ = ("found", "missing")
    class ItemType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SCALAR: _ClassVar[_ItemGetTypeResponse.ItemType]
        DICTIONARY: _ClassVar[_ItemGetTypeResponse.ItemType]
        SET: _ClassVar[_ItemGetTypeResponse.ItemType]
        LIST: _ClassVar[_ItemGetTypeResponse.ItemType]
        SORTED_SET: _ClassVar[_ItemGetTypeResponse.ItemType]
    SCALAR: _ItemGetTypeResponse.ItemType
    DICTIONARY: _ItemGetTypeResponse.ItemType
    SET: _ItemGetTypeResponse.ItemType
    LIST: _ItemGetTypeResponse.ItemType
    SORTED_SET: _ItemGetTypeResponse.ItemType
    class _Found(_message.Message):
        __slots__ = ("item_type",)
        ITEM_TYPE_FIELD_NUMBER: _ClassVar[int]
        item_type: _ItemGetTypeResponse.ItemType
        def __init__(self, item_type: _Optional[_Union[_ItemGetTypeResponse.ItemType, str]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ItemGetTypeResponse._Found
    missing: _ItemGetTypeResponse._Missing
    def __init__(self, found: _Optional[_Union[_ItemGetTypeResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ItemGetTypeResponse._Missing, _Mapping]] = ...) -> None: ...
