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

class _GetWithHashRequest(_message.Message):
    __slots__ = ("cache_key",)
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    def __init__(self, cache_key: _Optional[bytes] = ...) -> None: ...

class _GetWithHashResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("value", "hash")
        VALUE_FIELD_NUMBER: _ClassVar[int]
        HASH_FIELD_NUMBER: _ClassVar[int]
        value: bytes
        hash: bytes
        def __init__(self, value: _Optional[bytes] = ..., hash: _Optional[bytes] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _GetWithHashResponse._Found
    missing: _GetWithHashResponse._Missing
    def __init__(self, found: _Optional[_Union[_GetWithHashResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_GetWithHashResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetIfHashRequest(_message.Message):
    __slots__ = ("cache_key", "cache_body", "ttl_milliseconds", "present_and_not_hash_equal", "present_and_hash_equal", "absent_or_hash_equal", "absent_or_not_hash_equal", "unconditional")
    CACHE_KEY_FIELD_NUMBER: _ClassVar[int]
    CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    PRESENT_AND_NOT_HASH_EQUAL_FIELD_NUMBER: _ClassVar[int]
    PRESENT_AND_HASH_EQUAL_FIELD_NUMBER: _ClassVar[int]
    ABSENT_OR_HASH_EQUAL_FIELD_NUMBER: _ClassVar[int]
    ABSENT_OR_NOT_HASH_EQUAL_FIELD_NUMBER: _ClassVar[int]
    UNCONDITIONAL_FIELD_NUMBER: _ClassVar[int]
    cache_key: bytes
    cache_body: bytes
    ttl_milliseconds: int
    present_and_not_hash_equal: _common_pb2.PresentAndNotHashEqual
    present_and_hash_equal: _common_pb2.PresentAndHashEqual
    absent_or_hash_equal: _common_pb2.AbsentOrHashEqual
    absent_or_not_hash_equal: _common_pb2.AbsentOrNotHashEqual
    unconditional: _common_pb2.Unconditional
    def __init__(self, cache_key: _Optional[bytes] = ..., cache_body: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ..., present_and_not_hash_equal: _Optional[_Union[_common_pb2.PresentAndNotHashEqual, _Mapping]] = ..., present_and_hash_equal: _Optional[_Union[_common_pb2.PresentAndHashEqual, _Mapping]] = ..., absent_or_hash_equal: _Optional[_Union[_common_pb2.AbsentOrHashEqual, _Mapping]] = ..., absent_or_not_hash_equal: _Optional[_Union[_common_pb2.AbsentOrNotHashEqual, _Mapping]] = ..., unconditional: _Optional[_Union[_common_pb2.Unconditional, _Mapping]] = ...) -> None: ...

class _SetIfHashResponse(_message.Message):
    __slots__ = ("stored", "not_stored")
    class _Stored(_message.Message):
        __slots__ = ("new_hash",)
        NEW_HASH_FIELD_NUMBER: _ClassVar[int]
        new_hash: bytes
        def __init__(self, new_hash: _Optional[bytes] = ...) -> None: ...
    class _NotStored(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    STORED_FIELD_NUMBER: _ClassVar[int]
    NOT_STORED_FIELD_NUMBER: _ClassVar[int]
    stored: _SetIfHashResponse._Stored
    not_stored: _SetIfHashResponse._NotStored
    def __init__(self, stored: _Optional[_Union[_SetIfHashResponse._Stored, _Mapping]] = ..., not_stored: _Optional[_Union[_SetIfHashResponse._NotStored, _Mapping]] = ...) -> None: ...

class _DictionaryFieldValuePair(_message.Message):
    __slots__ = ("field", "value")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    field: bytes
    value: bytes
    def __init__(self, field: _Optional[bytes] = ..., value: _Optional[bytes] = ...) -> None: ...

class _DictionaryGetRequest(_message.Message):
    __slots__ = ("dictionary_name", "fields")
    DICTIONARY_NAME_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    dictionary_name: bytes
    fields: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, dictionary_name: _Optional[bytes] = ..., fields: _Optional[_Iterable[bytes]] = ...) -> None: ...

class _DictionaryGetResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _DictionaryGetResponsePart(_message.Message):
        __slots__ = ("result", "cache_body")
        RESULT_FIELD_NUMBER: _ClassVar[int]
        CACHE_BODY_FIELD_NUMBER: _ClassVar[int]
        result: ECacheResult
        cache_body: bytes
        def __init__(self, result: _Optional[_Union[ECacheResult, str]] = ..., cache_body: _Optional[bytes] = ...) -> None: ...
    class _Found(_message.Message):
        __slots__ = ("items",)
        ITEMS_FIELD_NUMBER: _ClassVar[int]
        items: _containers.RepeatedCompositeFieldContainer[_DictionaryGetResponse._DictionaryGetResponsePart]
        def __init__(self, items: _Optional[_Iterable[_Union[_DictionaryGetResponse._DictionaryGetResponsePart, _Mapping]]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _DictionaryGetResponse._Found
    missing: _DictionaryGetResponse._Missing
    def __init__(self, found: _Optional[_Union[_DictionaryGetResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_DictionaryGetResponse._Missing, _Mapping]] = ...) -> None: ...

class _DictionaryFetchRequest(_message.Message):
    __slots__ = ("dictionary_name",)
    DICTIONARY_NAME_FIELD_NUMBER: _ClassVar[int]
    dictionary_name: bytes
    def __init__(self, dictionary_name: _Optional[bytes] = ...) -> None: ...

class _DictionaryFetchResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("items",)
        ITEMS_FIELD_NUMBER: _ClassVar[int]
        items: _containers.RepeatedCompositeFieldContainer[_DictionaryFieldValuePair]
        def __init__(self, items: _Optional[_Iterable[_Union[_DictionaryFieldValuePair, _Mapping]]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _DictionaryFetchResponse._Found
    missing: _DictionaryFetchResponse._Missing
    def __init__(self, found: _Optional[_Union[_DictionaryFetchResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_DictionaryFetchResponse._Missing, _Mapping]] = ...) -> None: ...

class _DictionarySetRequest(_message.Message):
    __slots__ = ("dictionary_name", "items", "ttl_milliseconds", "refresh_ttl")
    DICTIONARY_NAME_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    dictionary_name: bytes
    items: _containers.RepeatedCompositeFieldContainer[_DictionaryFieldValuePair]
    ttl_milliseconds: int
    refresh_ttl: bool
    def __init__(self, dictionary_name: _Optional[bytes] = ..., items: _Optional[_Iterable[_Union[_DictionaryFieldValuePair, _Mapping]]] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class _DictionarySetResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _DictionaryIncrementRequest(_message.Message):
    __slots__ = ("dictionary_name", "field", "amount", "ttl_milliseconds", "refresh_ttl")
    DICTIONARY_NAME_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    dictionary_name: bytes
    field: bytes
    amount: int
    ttl_milliseconds: int
    refresh_ttl: bool
    def __init__(self, dictionary_name: _Optional[bytes] = ..., field: _Optional[bytes] = ..., amount: _Optional[int] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class _DictionaryIncrementResponse(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class _DictionaryDeleteRequest(_message.Message):
    __slots__ = ("dictionary_name", "some", "all")
    class Some(_message.Message):
        __slots__ = ("fields",)
        FIELDS_FIELD_NUMBER: _ClassVar[int]
        fields: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, fields: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class All(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    DICTIONARY_NAME_FIELD_NUMBER: _ClassVar[int]
    SOME_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    dictionary_name: bytes
    some: _DictionaryDeleteRequest.Some
    all: _DictionaryDeleteRequest.All
    def __init__(self, dictionary_name: _Optional[bytes] = ..., some: _Optional[_Union[_DictionaryDeleteRequest.Some, _Mapping]] = ..., all: _Optional[_Union[_DictionaryDeleteRequest.All, _Mapping]] = ...) -> None: ...

class _DictionaryDeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _DictionaryLengthRequest(_message.Message):
    __slots__ = ("dictionary_name",)
    DICTIONARY_NAME_FIELD_NUMBER: _ClassVar[int]
    dictionary_name: bytes
    def __init__(self, dictionary_name: _Optional[bytes] = ...) -> None: ...

class _DictionaryLengthResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("length",)
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        length: int
        def __init__(self, length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _DictionaryLengthResponse._Found
    missing: _DictionaryLengthResponse._Missing
    def __init__(self, found: _Optional[_Union[_DictionaryLengthResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_DictionaryLengthResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetFetchRequest(_message.Message):
    __slots__ = ("set_name",)
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    def __init__(self, set_name: _Optional[bytes] = ...) -> None: ...

class _SetFetchResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("elements",)
        ELEMENTS_FIELD_NUMBER: _ClassVar[int]
        elements: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, elements: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SetFetchResponse._Found
    missing: _SetFetchResponse._Missing
    def __init__(self, found: _Optional[_Union[_SetFetchResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SetFetchResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetSampleRequest(_message.Message):
    __slots__ = ("set_name", "limit")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    limit: int
    def __init__(self, set_name: _Optional[bytes] = ..., limit: _Optional[int] = ...) -> None: ...

class _SetSampleResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("elements",)
        ELEMENTS_FIELD_NUMBER: _ClassVar[int]
        elements: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, elements: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SetSampleResponse._Found
    missing: _SetSampleResponse._Missing
    def __init__(self, found: _Optional[_Union[_SetSampleResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SetSampleResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetUnionRequest(_message.Message):
    __slots__ = ("set_name", "elements", "ttl_milliseconds", "refresh_ttl")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    elements: _containers.RepeatedScalarFieldContainer[bytes]
    ttl_milliseconds: int
    refresh_ttl: bool
    def __init__(self, set_name: _Optional[bytes] = ..., elements: _Optional[_Iterable[bytes]] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class _SetUnionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _SetDifferenceRequest(_message.Message):
    __slots__ = ("set_name", "minuend", "subtrahend")
    class _Minuend(_message.Message):
        __slots__ = ("elements",)
        ELEMENTS_FIELD_NUMBER: _ClassVar[int]
        elements: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, elements: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class _Subtrahend(_message.Message):
        __slots__ = ("set", "identity")
        class _Set(_message.Message):
            __slots__ = ("elements",)
            ELEMENTS_FIELD_NUMBER: _ClassVar[int]
            elements: _containers.RepeatedScalarFieldContainer[bytes]
            def __init__(self, elements: _Optional[_Iterable[bytes]] = ...) -> None: ...
        class _Identity(_message.Message):
            __slots__ = ()
            def __init__(self) -> None: ...
        SET_FIELD_NUMBER: _ClassVar[int]
        IDENTITY_FIELD_NUMBER: _ClassVar[int]
        set: _SetDifferenceRequest._Subtrahend._Set
        identity: _SetDifferenceRequest._Subtrahend._Identity
        def __init__(self, set: _Optional[_Union[_SetDifferenceRequest._Subtrahend._Set, _Mapping]] = ..., identity: _Optional[_Union[_SetDifferenceRequest._Subtrahend._Identity, _Mapping]] = ...) -> None: ...
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    MINUEND_FIELD_NUMBER: _ClassVar[int]
    SUBTRAHEND_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    minuend: _SetDifferenceRequest._Minuend
    subtrahend: _SetDifferenceRequest._Subtrahend
    def __init__(self, set_name: _Optional[bytes] = ..., minuend: _Optional[_Union[_SetDifferenceRequest._Minuend, _Mapping]] = ..., subtrahend: _Optional[_Union[_SetDifferenceRequest._Subtrahend, _Mapping]] = ...) -> None: ...

class _SetDifferenceResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SetDifferenceResponse._Found
    missing: _SetDifferenceResponse._Missing
    def __init__(self, found: _Optional[_Union[_SetDifferenceResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SetDifferenceResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetContainsRequest(_message.Message):
    __slots__ = ("set_name", "elements")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    elements: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, set_name: _Optional[bytes] = ..., elements: _Optional[_Iterable[bytes]] = ...) -> None: ...

class _SetContainsResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("contains",)
        CONTAINS_FIELD_NUMBER: _ClassVar[int]
        contains: _containers.RepeatedScalarFieldContainer[bool]
        def __init__(self, contains: _Optional[_Iterable[bool]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SetContainsResponse._Found
    missing: _SetContainsResponse._Missing
    def __init__(self, found: _Optional[_Union[_SetContainsResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SetContainsResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetLengthRequest(_message.Message):
    __slots__ = ("set_name",)
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    def __init__(self, set_name: _Optional[bytes] = ...) -> None: ...

class _SetLengthResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("length",)
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        length: int
        def __init__(self, length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SetLengthResponse._Found
    missing: _SetLengthResponse._Missing
    def __init__(self, found: _Optional[_Union[_SetLengthResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SetLengthResponse._Missing, _Mapping]] = ...) -> None: ...

class _SetPopRequest(_message.Message):
    __slots__ = ("set_name", "count")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    count: int
    def __init__(self, set_name: _Optional[bytes] = ..., count: _Optional[int] = ...) -> None: ...

class _SetPopResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("elements",)
        ELEMENTS_FIELD_NUMBER: _ClassVar[int]
        elements: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, elements: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SetPopResponse._Found
    missing: _SetPopResponse._Missing
    def __init__(self, found: _Optional[_Union[_SetPopResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SetPopResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListPushFrontRequest(_message.Message):
    __slots__ = ("list_name", "value", "ttl_milliseconds", "refresh_ttl", "truncate_back_to_size")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATE_BACK_TO_SIZE_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    value: bytes
    ttl_milliseconds: int
    refresh_ttl: bool
    truncate_back_to_size: int
    def __init__(self, list_name: _Optional[bytes] = ..., value: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ..., truncate_back_to_size: _Optional[int] = ...) -> None: ...

class _ListPushFrontResponse(_message.Message):
    __slots__ = ("list_length",)
    LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
    list_length: int
    def __init__(self, list_length: _Optional[int] = ...) -> None: ...

class _ListPushBackRequest(_message.Message):
    __slots__ = ("list_name", "value", "ttl_milliseconds", "refresh_ttl", "truncate_front_to_size")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATE_FRONT_TO_SIZE_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    value: bytes
    ttl_milliseconds: int
    refresh_ttl: bool
    truncate_front_to_size: int
    def __init__(self, list_name: _Optional[bytes] = ..., value: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ..., truncate_front_to_size: _Optional[int] = ...) -> None: ...

class _ListPushBackResponse(_message.Message):
    __slots__ = ("list_length",)
    LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
    list_length: int
    def __init__(self, list_length: _Optional[int] = ...) -> None: ...

class _ListConcatenateFrontRequest(_message.Message):
    __slots__ = ("list_name", "values", "ttl_milliseconds", "refresh_ttl", "truncate_back_to_size")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATE_BACK_TO_SIZE_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    values: _containers.RepeatedScalarFieldContainer[bytes]
    ttl_milliseconds: int
    refresh_ttl: bool
    truncate_back_to_size: int
    def __init__(self, list_name: _Optional[bytes] = ..., values: _Optional[_Iterable[bytes]] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ..., truncate_back_to_size: _Optional[int] = ...) -> None: ...

class _ListConcatenateFrontResponse(_message.Message):
    __slots__ = ("list_length",)
    LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
    list_length: int
    def __init__(self, list_length: _Optional[int] = ...) -> None: ...

class _ListConcatenateBackRequest(_message.Message):
    __slots__ = ("list_name", "values", "ttl_milliseconds", "refresh_ttl", "truncate_front_to_size")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATE_FRONT_TO_SIZE_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    values: _containers.RepeatedScalarFieldContainer[bytes]
    ttl_milliseconds: int
    refresh_ttl: bool
    truncate_front_to_size: int
    def __init__(self, list_name: _Optional[bytes] = ..., values: _Optional[_Iterable[bytes]] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ..., truncate_front_to_size: _Optional[int] = ...) -> None: ...

class _ListConcatenateBackResponse(_message.Message):
    __slots__ = ("list_length",)
    LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
    list_length: int
    def __init__(self, list_length: _Optional[int] = ...) -> None: ...

class _ListPopFrontRequest(_message.Message):
    __slots__ = ("list_name",)
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    def __init__(self, list_name: _Optional[bytes] = ...) -> None: ...

class _ListPopFrontResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("front", "list_length")
        FRONT_FIELD_NUMBER: _ClassVar[int]
        LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
        front: bytes
        list_length: int
        def __init__(self, front: _Optional[bytes] = ..., list_length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListPopFrontResponse._Found
    missing: _ListPopFrontResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListPopFrontResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListPopFrontResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListPopBackRequest(_message.Message):
    __slots__ = ("list_name",)
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    def __init__(self, list_name: _Optional[bytes] = ...) -> None: ...

class _ListPopBackResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("back", "list_length")
        BACK_FIELD_NUMBER: _ClassVar[int]
        LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
        back: bytes
        list_length: int
        def __init__(self, back: _Optional[bytes] = ..., list_length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListPopBackResponse._Found
    missing: _ListPopBackResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListPopBackResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListPopBackResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListFetchRequest(_message.Message):
    __slots__ = ("list_name", "unbounded_start", "inclusive_start", "unbounded_end", "exclusive_end")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_START_FIELD_NUMBER: _ClassVar[int]
    INCLUSIVE_START_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_END_FIELD_NUMBER: _ClassVar[int]
    EXCLUSIVE_END_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    unbounded_start: _common_pb2._Unbounded
    inclusive_start: int
    unbounded_end: _common_pb2._Unbounded
    exclusive_end: int
    def __init__(self, list_name: _Optional[bytes] = ..., unbounded_start: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., inclusive_start: _Optional[int] = ..., unbounded_end: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., exclusive_end: _Optional[int] = ...) -> None: ...

class _ListFetchResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("values",)
        VALUES_FIELD_NUMBER: _ClassVar[int]
        values: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, values: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListFetchResponse._Found
    missing: _ListFetchResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListFetchResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListFetchResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListRetainRequest(_message.Message):
    __slots__ = ("list_name", "unbounded_start", "inclusive_start", "unbounded_end", "exclusive_end", "ttl_milliseconds", "refresh_ttl")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_START_FIELD_NUMBER: _ClassVar[int]
    INCLUSIVE_START_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_END_FIELD_NUMBER: _ClassVar[int]
    EXCLUSIVE_END_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    unbounded_start: _common_pb2._Unbounded
    inclusive_start: int
    unbounded_end: _common_pb2._Unbounded
    exclusive_end: int
    ttl_milliseconds: int
    refresh_ttl: bool
    def __init__(self, list_name: _Optional[bytes] = ..., unbounded_start: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., inclusive_start: _Optional[int] = ..., unbounded_end: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., exclusive_end: _Optional[int] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class _ListRetainResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("list_length",)
        LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
        list_length: int
        def __init__(self, list_length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListRetainResponse._Found
    missing: _ListRetainResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListRetainResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListRetainResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListRange(_message.Message):
    __slots__ = ("begin_index", "count")
    BEGIN_INDEX_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    begin_index: int
    count: int
    def __init__(self, begin_index: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class _ListEraseRequest(_message.Message):
    __slots__ = ("list_name", "some", "all")
    class _All(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _ListRanges(_message.Message):
        __slots__ = ("ranges",)
        RANGES_FIELD_NUMBER: _ClassVar[int]
        ranges: _containers.RepeatedCompositeFieldContainer[_ListRange]
        def __init__(self, ranges: _Optional[_Iterable[_Union[_ListRange, _Mapping]]] = ...) -> None: ...
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    SOME_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    some: _ListEraseRequest._ListRanges
    all: _ListEraseRequest._All
    def __init__(self, list_name: _Optional[bytes] = ..., some: _Optional[_Union[_ListEraseRequest._ListRanges, _Mapping]] = ..., all: _Optional[_Union[_ListEraseRequest._All, _Mapping]] = ...) -> None: ...

class _ListEraseResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("list_length",)
        LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
        list_length: int
        def __init__(self, list_length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListEraseResponse._Found
    missing: _ListEraseResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListEraseResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListEraseResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListRemoveRequest(_message.Message):
    __slots__ = ("list_name", "all_elements_with_value")
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    ALL_ELEMENTS_WITH_VALUE_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    all_elements_with_value: bytes
    def __init__(self, list_name: _Optional[bytes] = ..., all_elements_with_value: _Optional[bytes] = ...) -> None: ...

class _ListRemoveResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("list_length",)
        LIST_LENGTH_FIELD_NUMBER: _ClassVar[int]
        list_length: int
        def __init__(self, list_length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListRemoveResponse._Found
    missing: _ListRemoveResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListRemoveResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListRemoveResponse._Missing, _Mapping]] = ...) -> None: ...

class _ListLengthRequest(_message.Message):
    __slots__ = ("list_name",)
    LIST_NAME_FIELD_NUMBER: _ClassVar[int]
    list_name: bytes
    def __init__(self, list_name: _Optional[bytes] = ...) -> None: ...

class _ListLengthResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("length",)
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        length: int
        def __init__(self, length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _ListLengthResponse._Found
    missing: _ListLengthResponse._Missing
    def __init__(self, found: _Optional[_Union[_ListLengthResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_ListLengthResponse._Missing, _Mapping]] = ...) -> None: ...

class _SortedSetElement(_message.Message):
    __slots__ = ("value", "score")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    value: bytes
    score: float
    def __init__(self, value: _Optional[bytes] = ..., score: _Optional[float] = ...) -> None: ...

class _SortedSetPutRequest(_message.Message):
    __slots__ = ("set_name", "elements", "ttl_milliseconds", "refresh_ttl")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    elements: _containers.RepeatedCompositeFieldContainer[_SortedSetElement]
    ttl_milliseconds: int
    refresh_ttl: bool
    def __init__(self, set_name: _Optional[bytes] = ..., elements: _Optional[_Iterable[_Union[_SortedSetElement, _Mapping]]] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class _SortedSetPutResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _SortedSetFetchRequest(_message.Message):
    __slots__ = ("set_name", "order", "with_scores", "by_index", "by_score")
    class Order(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ASCENDING: _ClassVar[_SortedSetFetchRequest.Order]
        DESCENDING: _ClassVar[_SortedSetFetchRequest.Order]
    ASCENDING: _SortedSetFetchRequest.Order
    DESCENDING: _SortedSetFetchRequest.Order
    class _ByIndex(_message.Message):
        __slots__ = ("unbounded_start", "inclusive_start_index", "unbounded_end", "exclusive_end_index")
        UNBOUNDED_START_FIELD_NUMBER: _ClassVar[int]
        INCLUSIVE_START_INDEX_FIELD_NUMBER: _ClassVar[int]
        UNBOUNDED_END_FIELD_NUMBER: _ClassVar[int]
        EXCLUSIVE_END_INDEX_FIELD_NUMBER: _ClassVar[int]
        unbounded_start: _common_pb2._Unbounded
        inclusive_start_index: int
        unbounded_end: _common_pb2._Unbounded
        exclusive_end_index: int
        def __init__(self, unbounded_start: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., inclusive_start_index: _Optional[int] = ..., unbounded_end: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., exclusive_end_index: _Optional[int] = ...) -> None: ...
    class _ByScore(_message.Message):
        __slots__ = ("unbounded_min", "min_score", "unbounded_max", "max_score", "offset", "count")
        class _Score(_message.Message):
            __slots__ = ("score", "exclusive")
            SCORE_FIELD_NUMBER: _ClassVar[int]
            EXCLUSIVE_FIELD_NUMBER: _ClassVar[int]
            score: float
            exclusive: bool
            def __init__(self, score: _Optional[float] = ..., exclusive: _Optional[bool] = ...) -> None: ...
        UNBOUNDED_MIN_FIELD_NUMBER: _ClassVar[int]
        MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
        UNBOUNDED_MAX_FIELD_NUMBER: _ClassVar[int]
        MAX_SCORE_FIELD_NUMBER: _ClassVar[int]
        OFFSET_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        unbounded_min: _common_pb2._Unbounded
        min_score: _SortedSetFetchRequest._ByScore._Score
        unbounded_max: _common_pb2._Unbounded
        max_score: _SortedSetFetchRequest._ByScore._Score
        offset: int
        count: int
        def __init__(self, unbounded_min: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., min_score: _Optional[_Union[_SortedSetFetchRequest._ByScore._Score, _Mapping]] = ..., unbounded_max: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., max_score: _Optional[_Union[_SortedSetFetchRequest._ByScore._Score, _Mapping]] = ..., offset: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    WITH_SCORES_FIELD_NUMBER: _ClassVar[int]
    BY_INDEX_FIELD_NUMBER: _ClassVar[int]
    BY_SCORE_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    order: _SortedSetFetchRequest.Order
    with_scores: bool
    by_index: _SortedSetFetchRequest._ByIndex
    by_score: _SortedSetFetchRequest._ByScore
    def __init__(self, set_name: _Optional[bytes] = ..., order: _Optional[_Union[_SortedSetFetchRequest.Order, str]] = ..., with_scores: _Optional[bool] = ..., by_index: _Optional[_Union[_SortedSetFetchRequest._ByIndex, _Mapping]] = ..., by_score: _Optional[_Union[_SortedSetFetchRequest._ByScore, _Mapping]] = ...) -> None: ...

class _SortedSetFetchResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("values_with_scores", "values")
        class _ValuesWithScores(_message.Message):
            __slots__ = ("elements",)
            ELEMENTS_FIELD_NUMBER: _ClassVar[int]
            elements: _containers.RepeatedCompositeFieldContainer[_SortedSetElement]
            def __init__(self, elements: _Optional[_Iterable[_Union[_SortedSetElement, _Mapping]]] = ...) -> None: ...
        class _Values(_message.Message):
            __slots__ = ("values",)
            VALUES_FIELD_NUMBER: _ClassVar[int]
            values: _containers.RepeatedScalarFieldContainer[bytes]
            def __init__(self, values: _Optional[_Iterable[bytes]] = ...) -> None: ...
        VALUES_WITH_SCORES_FIELD_NUMBER: _ClassVar[int]
        VALUES_FIELD_NUMBER: _ClassVar[int]
        values_with_scores: _SortedSetFetchResponse._Found._ValuesWithScores
        values: _SortedSetFetchResponse._Found._Values
        def __init__(self, values_with_scores: _Optional[_Union[_SortedSetFetchResponse._Found._ValuesWithScores, _Mapping]] = ..., values: _Optional[_Union[_SortedSetFetchResponse._Found._Values, _Mapping]] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SortedSetFetchResponse._Found
    missing: _SortedSetFetchResponse._Missing
    def __init__(self, found: _Optional[_Union[_SortedSetFetchResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SortedSetFetchResponse._Missing, _Mapping]] = ...) -> None: ...

class _SortedSetGetScoreRequest(_message.Message):
    __slots__ = ("set_name", "values")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    values: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, set_name: _Optional[bytes] = ..., values: _Optional[_Iterable[bytes]] = ...) -> None: ...

class _SortedSetGetScoreResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _SortedSetGetScoreResponsePart(_message.Message):
        __slots__ = ("result", "score")
        RESULT_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        result: ECacheResult
        score: float
        def __init__(self, result: _Optional[_Union[ECacheResult, str]] = ..., score: _Optional[float] = ...) -> None: ...
    class _SortedSetFound(_message.Message):
        __slots__ = ("elements",)
        ELEMENTS_FIELD_NUMBER: _ClassVar[int]
        elements: _containers.RepeatedCompositeFieldContainer[_SortedSetGetScoreResponse._SortedSetGetScoreResponsePart]
        def __init__(self, elements: _Optional[_Iterable[_Union[_SortedSetGetScoreResponse._SortedSetGetScoreResponsePart, _Mapping]]] = ...) -> None: ...
    class _SortedSetMissing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SortedSetGetScoreResponse._SortedSetFound
    missing: _SortedSetGetScoreResponse._SortedSetMissing
    def __init__(self, found: _Optional[_Union[_SortedSetGetScoreResponse._SortedSetFound, _Mapping]] = ..., missing: _Optional[_Union[_SortedSetGetScoreResponse._SortedSetMissing, _Mapping]] = ...) -> None: ...

class _SortedSetRemoveRequest(_message.Message):
    __slots__ = ("set_name", "all", "some")
    class _All(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class _Some(_message.Message):
        __slots__ = ("values",)
        VALUES_FIELD_NUMBER: _ClassVar[int]
        values: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, values: _Optional[_Iterable[bytes]] = ...) -> None: ...
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    SOME_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    all: _SortedSetRemoveRequest._All
    some: _SortedSetRemoveRequest._Some
    def __init__(self, set_name: _Optional[bytes] = ..., all: _Optional[_Union[_SortedSetRemoveRequest._All, _Mapping]] = ..., some: _Optional[_Union[_SortedSetRemoveRequest._Some, _Mapping]] = ...) -> None: ...

class _SortedSetRemoveResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _SortedSetIncrementRequest(_message.Message):
    __slots__ = ("set_name", "value", "amount", "ttl_milliseconds", "refresh_ttl")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    value: bytes
    amount: float
    ttl_milliseconds: int
    refresh_ttl: bool
    def __init__(self, set_name: _Optional[bytes] = ..., value: _Optional[bytes] = ..., amount: _Optional[float] = ..., ttl_milliseconds: _Optional[int] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class _SortedSetIncrementResponse(_message.Message):
    __slots__ = ("score",)
    SCORE_FIELD_NUMBER: _ClassVar[int]
    score: float
    def __init__(self, score: _Optional[float] = ...) -> None: ...

class _SortedSetGetRankRequest(_message.Message):
    __slots__ = ("set_name", "value", "order")
    class Order(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ASCENDING: _ClassVar[_SortedSetGetRankRequest.Order]
        DESCENDING: _ClassVar[_SortedSetGetRankRequest.Order]
    ASCENDING: _SortedSetGetRankRequest.Order
    DESCENDING: _SortedSetGetRankRequest.Order
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    value: bytes
    order: _SortedSetGetRankRequest.Order
    def __init__(self, set_name: _Optional[bytes] = ..., value: _Optional[bytes] = ..., order: _Optional[_Union[_SortedSetGetRankRequest.Order, str]] = ...) -> None: ...

class _SortedSetGetRankResponse(_message.Message):
    __slots__ = ("element_rank", "missing")
    class _RankResponsePart(_message.Message):
        __slots__ = ("result", "rank")
        RESULT_FIELD_NUMBER: _ClassVar[int]
        RANK_FIELD_NUMBER: _ClassVar[int]
        result: ECacheResult
        rank: int
        def __init__(self, result: _Optional[_Union[ECacheResult, str]] = ..., rank: _Optional[int] = ...) -> None: ...
    class _SortedSetMissing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    ELEMENT_RANK_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    element_rank: _SortedSetGetRankResponse._RankResponsePart
    missing: _SortedSetGetRankResponse._SortedSetMissing
    def __init__(self, element_rank: _Optional[_Union[_SortedSetGetRankResponse._RankResponsePart, _Mapping]] = ..., missing: _Optional[_Union[_SortedSetGetRankResponse._SortedSetMissing, _Mapping]] = ...) -> None: ...

class _SortedSetLengthRequest(_message.Message):
    __slots__ = ("set_name",)
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    def __init__(self, set_name: _Optional[bytes] = ...) -> None: ...

class _SortedSetLengthResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("length",)
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        length: int
        def __init__(self, length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SortedSetLengthResponse._Found
    missing: _SortedSetLengthResponse._Missing
    def __init__(self, found: _Optional[_Union[_SortedSetLengthResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SortedSetLengthResponse._Missing, _Mapping]] = ...) -> None: ...

class _SortedSetLengthByScoreRequest(_message.Message):
    __slots__ = ("set_name", "inclusive_min", "exclusive_min", "unbounded_min", "inclusive_max", "exclusive_max", "unbounded_max")
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    INCLUSIVE_MIN_FIELD_NUMBER: _ClassVar[int]
    EXCLUSIVE_MIN_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_MIN_FIELD_NUMBER: _ClassVar[int]
    INCLUSIVE_MAX_FIELD_NUMBER: _ClassVar[int]
    EXCLUSIVE_MAX_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_MAX_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    inclusive_min: float
    exclusive_min: float
    unbounded_min: _common_pb2._Unbounded
    inclusive_max: float
    exclusive_max: float
    unbounded_max: _common_pb2._Unbounded
    def __init__(self, set_name: _Optional[bytes] = ..., inclusive_min: _Optional[float] = ..., exclusive_min: _Optional[float] = ..., unbounded_min: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., inclusive_max: _Optional[float] = ..., exclusive_max: _Optional[float] = ..., unbounded_max: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ...) -> None: ...

class _SortedSetLengthByScoreResponse(_message.Message):
    __slots__ = ("found", "missing")
    class _Found(_message.Message):
        __slots__ = ("length",)
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        length: int
        def __init__(self, length: _Optional[int] = ...) -> None: ...
    class _Missing(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    FOUND_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    found: _SortedSetLengthByScoreResponse._Found
    missing: _SortedSetLengthByScoreResponse._Missing
    def __init__(self, found: _Optional[_Union[_SortedSetLengthByScoreResponse._Found, _Mapping]] = ..., missing: _Optional[_Union[_SortedSetLengthByScoreResponse._Missing, _Mapping]] = ...) -> None: ...

class _SortedSetUnionStoreRequest(_message.Message):
    __slots__ = ("set_name", "sources", "aggregate", "ttl_milliseconds")
    class AggregateFunction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SUM: _ClassVar[_SortedSetUnionStoreRequest.AggregateFunction]
        MIN: _ClassVar[_SortedSetUnionStoreRequest.AggregateFunction]
        MAX: _ClassVar[_SortedSetUnionStoreRequest.AggregateFunction]
    SUM: _SortedSetUnionStoreRequest.AggregateFunction
    MIN: _SortedSetUnionStoreRequest.AggregateFunction
    MAX: _SortedSetUnionStoreRequest.AggregateFunction
    class _Source(_message.Message):
        __slots__ = ("set_name", "weight")
        SET_NAME_FIELD_NUMBER: _ClassVar[int]
        WEIGHT_FIELD_NUMBER: _ClassVar[int]
        set_name: bytes
        weight: float
        def __init__(self, set_name: _Optional[bytes] = ..., weight: _Optional[float] = ...) -> None: ...
    SET_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    AGGREGATE_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    set_name: bytes
    sources: _containers.RepeatedCompositeFieldContainer[_SortedSetUnionStoreRequest._Source]
    aggregate: _SortedSetUnionStoreRequest.AggregateFunction
    ttl_milliseconds: int
    def __init__(self, set_name: _Optional[bytes] = ..., sources: _Optional[_Iterable[_Union[_SortedSetUnionStoreRequest._Source, _Mapping]]] = ..., aggregate: _Optional[_Union[_SortedSetUnionStoreRequest.AggregateFunction, str]] = ..., ttl_milliseconds: _Optional[int] = ...) -> None: ...

class _SortedSetUnionStoreResponse(_message.Message):
    __slots__ = ("length",)
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    length: int
    def __init__(self, length: _Optional[int] = ...) -> None: ...
