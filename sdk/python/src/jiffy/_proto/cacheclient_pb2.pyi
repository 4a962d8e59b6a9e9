from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar

from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper

from jiffy._proto import common_pb2 as _common_pb2

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
    def __init__(self, cache_key: bytes | None = ...) -> None: ...

class _GetResponse(_message.Message):
    __slots__ = ("result", "cache_body", "message")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    result: ECacheResult
    cache_body: bytes
    message: str
    def __init__(
        self,
        result: ECacheResult | str | None = ...,
        cache_body: bytes | None = ...,
        message: str | None = ...,
    ) -> None: ...

class _GetBatchRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[_GetRequest]
    def __init__(
        self, items: _Iterable[_GetRequest | _Mapping] | None = ...
    ) -> None: ...

class _SetRequest(_message.Message):
    __slots__ = ("cache_key", "cache_body", "ttl_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    cache_body: bytes
    ttl_milliseconds: int
    def __init__(
        self,
        cache_key: bytes | None = ...,
        cache_body: bytes | None = ...,
        ttl_milliseconds: int | None = ...,
    ) -> None: ...

class _SetResponse(_message.Message):
    __slots__ = ("result", "message")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    result: ECacheResult
    message: str
    def __init__(
        self, result: ECacheResult | str | None = ..., message: str | None = ...
    ) -> None: ...

class _SetBatchRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[_SetRequest]
    def __init__(
        self, items: _Iterable[_SetRequest | _Mapping] | None = ...
    ) -> None: ...

class _SetIfRequest(_message.Message):
    __slots__ = (
        "cache_key",
        "cache_body",
        "ttl_milliseconds",
        "present",
        "present_and_not_equal",
        "absent",
        "equal",
        "absent_or_equal",
        "not_equal",
    )
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
    def __init__(
        self,
        cache_key: bytes | None = ...,
        cache_body: bytes | None = ...,
        ttl_milliseconds: int | None = ...,
        present: _common_pb2.Present | _Mapping | None = ...,
        present_and_not_equal: _common_pb2.PresentAndNotEqual | _Mapping | None = ...,
        absent: _common_pb2.Absent | _Mapping | None = ...,
        equal: _common_pb2.Equal | _Mapping | None = ...,
        absent_or_equal: _common_pb2.AbsentOrEqual | _Mapping | None = ...,
        not_equal: _common_pb2.NotEqual | _Mapping | None = ...,
    ) -> None: ...

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
    def __init__(
        self,
        stored: _SetIfResponse._Stored | _Mapping | None = ...,
        not_stored: _SetIfResponse._NotStored | _Mapping | None = ...,
    ) -> None: ...

class _SetIfNotExistsRequest(_message.Message):
    __slots__ = ("cache_key", "cache_body", "ttl_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    cache_body: bytes
    ttl_milliseconds: int
    def __init__(
        self,
        cache_key: bytes | None = ...,
        cache_body: bytes | None = ...,
        ttl_milliseconds: int | None = ...,
    ) -> None: ...

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
    def __init__(
        self,
        stored: _SetIfNotExistsResponse._Stored | _Mapping | None = ...,
        not_stored: _SetIfNotExistsResponse._NotStored | _Mapping | None = ...,
    ) -> None: ...

class _DeleteRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: bytes | None = ...) -> None: ...

class _DeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _KeysExistRequest(_message.Message):
    __slots__ = ("cache_keys",)
    CACHE_KEYS_FIELD_NUMBER: _ClassVar[int]
    cache_keys: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, cache_keys: _Iterable[bytes] | None = ...) -> None: ...

class _KeysExistResponse(_message.Message):
    __slots__ = ("exists",)
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    exists: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, exists: _Iterable[bool] | None = ...) -> None: ...

class _IncrementRequest(_message.Message):
    __slots__ = ("cache_key", "amount", "ttl_milliseconds")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    amount: int
    ttl_milliseconds: int
    def __init__(
        self,
        cache_key: bytes | None = ...,
        amount: int | None = ...,
        ttl_milliseconds: int | None = ...,
    ) -> None: ...

class _IncrementResponse(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: int | None = ...) -> None: ...

class _UpdateTtlRequest(_message.Message):
    __slots__ = (
        "cache_key",
        "increase_to_milliseconds",
        "decrease_to_milliseconds",
        "overwrite_to_milliseconds",
    )
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    INCREASE_TO_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    DECREASE_TO_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    OVERWRITE_TO_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    increase_to_milliseconds: int
    decrease_to_milliseconds: int
    overwrite_to_milliseconds: int
    def __init__(
        self,
        cache_key: bytes | None = ...,
        increase_to_milliseconds: int | None = ...,
        decrease_to_milliseconds: int | None = ...,
        overwrite_to_milliseconds: int | None = ...,
    ) -> None: ...

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
    def __init__(
        self,
        set: _UpdateTtlResponse._Set | _Mapping | None = ...,
        not_set: _UpdateTtlResponse._NotSet | _Mapping | None = ...,
        missing: _UpdateTtlResponse._Missing | _Mapping | None = ...,
    ) -> None: ...

class _ItemGetTtlRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: bytes | None = ...) -> None: ...

class _ItemGetTtlResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("remaining_ttl_millis",)
        REMAINING_TTL_MILLIS_FIELD_NUMBER: _ClassVar[int]
        remaining_ttl_millis: int
        def __init__(self, remaining_ttl_millis: int | None = ...) -> None: ...

    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...

    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ItemGetTtlResponse._Found
    missing: _ItemGetTtlResponse._Missing
    def __init__(
        self,
        found: _ItemGetTtlResponse._Found | _Mapping | None = ...,
        missing: _ItemGetTtlResponse._Missing | _Mapping | None = ...,
    ) -> None: ...

class _ItemGetTypeRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: bytes | None = ...) -> None: ...

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
        def __init__(
            self, item_type: _ItemGetTypeResponse.ItemType | str | None = ...
        ) -> None: ...

    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...

    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ItemGetTypeResponse._Found
    missing: _ItemGetTypeResponse._Missing
    def __init__(
        self,
        found: _ItemGetTypeResponse._Found | _Mapping | None = ...,
        missing: _ItemGetTypeResponse._Missing | _Mapping | None = ...,
    ) -> None: ...
