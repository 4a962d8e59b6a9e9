from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CacheRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CachePermitNone: _ClassVar[CacheRole]
    CacheReadWrite: _ClassVar[CacheRole]
    CacheReadOnly: _ClassVar[CacheRole]
    CacheWriteOnly: _ClassVar[CacheRole]

class TopicRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TopicPermitNone: _ClassVar[TopicRole]
    TopicReadWrite: _ClassVar[TopicRole]
    TopicReadOnly: _ClassVar[TopicRole]
    TopicWriteOnly: _ClassVar[TopicRole]

class FunctionRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FunctionPermitNone: _ClassVar[FunctionRole]
    FunctionInvoke: _ClassVar[FunctionRole]

class SuperUserPermissions(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SuperUser: _ClassVar[SuperUserPermissions]
CachePermitNone: CacheRole
CacheReadWrite: CacheRole
CacheReadOnly: CacheRole
CacheWriteOnly: CacheRole
TopicPermitNone: TopicRole
TopicReadWrite: TopicRole
TopicReadOnly: TopicRole
TopicWriteOnly: TopicRole
FunctionPermitNone: FunctionRole
FunctionInvoke: FunctionRole
SuperUser: SuperUserPermissions

class Permissions(_message.Message):
    __slots__ = ("super_user", "explicit")
    SUPER_USER_FIELD_NUMBER: _ClassVar[int]
    EXPLICIT_FIELD_NUMBER: _ClassVar[int]
    super_user: SuperUserPermissions
    explicit: ExplicitPermissions
    def __init__(self, super_user: _Optional[_Union[SuperUserPermissions, str]] = ..., explicit: _Optional[_Union[ExplicitPermissions, _Mapping]] = ...) -> None: ...

class ExplicitPermissions(_message.Message):
    __slots__ = ("permissions",)
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    permissions: _containers.RepeatedCompositeFieldContainer[PermissionsType]
    def __init__(self, permissions: _Optional[_Iterable[_Union[PermissionsType, _Mapping]]] = ...) -> None: ...

class PermissionsType(_message.Message):
    __slots__ = ("cache_permissions", "topic_permissions", "function_permissions")
    class All(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class CacheSelector(_message.Message):
        __slots__ = ("cache_name",)
        CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
        cache_name: str
        def __init__(self, cache_name: _Optional[str] = ...) -> None: ...
    class CacheItemSelector(_message.Message):
        __slots__ = ("key", "key_prefix")
        KEY_FIELD_NUMBER: _ClassVar[int]
        KEY_PREFIX_FIELD_NUMBER: _ClassVar[int]
        key: bytes
        key_prefix: bytes
        def __init__(self, key: _Optional[bytes] = ..., key_prefix: _Optional[bytes] = ...) -> None: ...
    class CachePermissions(_message.Message):
        __slots__ = ("role", "all_caches", "cache_selector", "all_items", "item_selector")
        ROLE_FIELD_NUMBER: _ClassVar[int]
        ALL_CACHES_FIELD_NUMBER: _ClassVar[int]
        CACHE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
        ALL_ITEMS_FIELD_NUMBER: _ClassVar[int]
        ITEM_SELECTOR_FIELD_NUMBER: _ClassVar[int]
        role: CacheRole
        all_caches: PermissionsType.All
        cache_selector: PermissionsType.CacheSelector
        all_items: PermissionsType.All
        item_selector: PermissionsType.CacheItemSelector
        def __init__(self, role: _Optional[_Union[CacheRole, str]] = ..., all_caches: _Optional[_Union[PermissionsType.All, _Mapping]] = ..., cache_selector: _Optional[_Union[PermissionsType.CacheSelector, _Mapping]] = ..., all_items: _Optional[_Union[PermissionsType.All, _Mapping]] = ..., item_selector: _Optional[_Union[PermissionsType.CacheItemSelector, _Mapping]] = ...) -> None: ...
    class TopicSelector(_message.Message):
        __slots__ = ("topic_name", "topic_name_prefix")
        TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
        TOPIC_NAME_PREFIX_FIELD_NUMBER: _ClassVar[int]
        topic_name: str
        topic_name_prefix: str
        def __init__(self, topic_name: _Optional[str] = ..., topic_name_prefix: _Optional[str] = ...) -> None: ...
    class TopicPermissions(_message.Message):
        __slots__ = ("role", "all_caches", "cache_selector", "all_topics", "topic_selector")
        ROLE_FIELD_NUMBER: _ClassVar[int]
        ALL_CACHES_FIELD_NUMBER: _ClassVar[int]
        CACHE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
        ALL_TOPICS_FIELD_NUMBER: _ClassVar[int]
        TOPIC_SELECTOR_FIELD_NUMBER: _ClassVar[int]
        role: TopicRole
        all_caches: PermissionsType.All
        cache_selector: PermissionsType.CacheSelector
        all_topics: PermissionsType.All
        topic_selector: PermissionsType.TopicSelector
        def __init__(self, role: _Optional[_Union[TopicRole, str]] = ..., all_caches: _Optional[_Union[PermissionsType.All, _Mapping]] = ..., cache_selector: _Optional[_Union[PermissionsType.CacheSelector, _Mapping]] = ..., all_topics: _Optional[_Union[PermissionsType.All, _Mapping]] = ..., topic_selector: _Optional[_Union[PermissionsType.TopicSelector, _Mapping]] = ...) -> None: ...
    class FunctionSelector(_message.Message):
        __slots__ = ("function_name", "function_name_prefix")
        FUNCTION_NAME_FIELD_NUMBER: _ClassVar[int]
        FUNCTION_NAME_PREFIX_FIELD_NUMBER: _ClassVar[int]
        function_name: str
        function_name_prefix: str
        def __init__(self, function_name: _Optional[str] = ..., function_name_prefix: _Optional[str] = ...) -> None: ...
    class FunctionPermissions(_message.Message):
        __slots__ = ("role", "all_caches", "cache_selector", "all_functions", "function_selector")
        ROLE_FIELD_NUMBER: _ClassVar[int]
        ALL_CACHES_FIELD_NUMBER: _ClassVar[int]
        CACHE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
        ALL_FUNCTIONS_FIELD_NUMBER: _ClassVar[int]
        FUNCTION_SELECTOR_FIELD_NUMBER: _ClassVar[int]
        role: FunctionRole
        all_caches: PermissionsType.All
        cache_selector: PermissionsType.CacheSelector
        all_functions: PermissionsType.All
        function_selector: PermissionsType.FunctionSelector
        def __init__(self, role: _Optional[_Union[FunctionRole, str]] = ..., all_caches: _Optional[_Union[PermissionsType.All, _Mapping]] = ..., cache_selector: _Optional[_Union[PermissionsType.CacheSelector, _Mapping]] = ..., all_functions: _Optional[_Union[PermissionsType.All, _Mapping]] = ..., function_selector: _Optional[_Union[PermissionsType.FunctionSelector, _Mapping]] = ...) -> None: ...
    CACHE_PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    TOPIC_PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    cache_permissions: PermissionsType.CachePermissions
    topic_permissions: PermissionsType.TopicPermissions
    function_permissions: PermissionsType.FunctionPermissions
    def __init__(self, cache_permissions: _Optional[_Union[PermissionsType.CachePermissions, _Mapping]] = ..., topic_permissions: _Optional[_Union[PermissionsType.TopicPermissions, _Mapping]] = ..., function_permissions: _Optional[_Union[PermissionsType.FunctionPermissions, _Mapping]] = ...) -> None: ...
