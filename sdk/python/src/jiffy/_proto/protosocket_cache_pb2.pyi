from jiffy._proto import protosocket_common_pb2 as _protosocket_common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CacheCommand(_message.Message):
    __slots__ = ("message_id", "control_code", "unary")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTROL_CODE_FIELD_NUMBER: _ClassVar[int]
    UNARY_FIELD_NUMBER: _ClassVar[int]
    message_id: int
    control_code: int
    unary: Unary
    def __init__(self, message_id: _Optional[int] = ..., control_code: _Optional[int] = ..., unary: _Optional[_Union[Unary, _Mapping]] = ...) -> None: ...

class Unary(_message.Message):
    __slots__ = ("auth", "get", "set", "delete")
    AUTH_FIELD_NUMBER: _ClassVar[int]
    GET_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    DELETE_FIELD_NUMBER: _ClassVar[int]
    auth: AuthenticateCommand
    get: GetCommand
    set: SetCommand
    delete: DeleteCommand
    def __init__(self, auth: _Optional[_Union[AuthenticateCommand, _Mapping]] = ..., get: _Optional[_Union[GetCommand, _Mapping]] = ..., set: _Optional[_Union[SetCommand, _Mapping]] = ..., delete: _Optional[_Union[DeleteCommand, _Mapping]] = ...) -> None: ...

class CacheResponse(_message.Message):
    __slots__ = ("message_id", "control_code", "error", "auth", "get", "set", "delete")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTROL_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    AUTH_FIELD_NUMBER: _ClassVar[int]
    GET_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    DELETE_FIELD_NUMBER: _ClassVar[int]
    message_id: int
    control_code: int
    error: _protosocket_common_pb2.CommandError
    auth: AuthenticateResponse
    get: GetResponse
    set: SetResponse
    delete: DeleteResponse
    def __init__(self, message_id: _Optional[int] = ..., control_code: _Optional[int] = ..., error: _Optional[_Union[_protosocket_common_pb2.CommandError, _Mapping]] = ..., auth: _Optional[_Union[AuthenticateResponse, _Mapping]] = ..., get: _Optional[_Union[GetResponse, _Mapping]] = ..., set: _Optional[_Union[SetResponse, _Mapping]] = ..., delete: _Optional[_Union[DeleteResponse, _Mapping]] = ...) -> None: ...

class AuthenticateCommand(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class AuthenticateResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCommand(_message.Message):
    __slots__ = ("namespace", "key")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    key: bytes
    def __init__(self, namespace: _Optional[str] = ..., key: _Optional[bytes] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: bytes
    def __init__(self, value: _Optional[bytes] = ...) -> None: ...

class SetCommand(_message.Message):
    __slots__ = ("namespace", "key", "value", "ttl_milliseconds")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TTL_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    key: bytes
    value: bytes
    ttl_milliseconds: int
    def __init__(self, namespace: _Optional[str] = ..., key: _Optional[bytes] = ..., value: _Optional[bytes] = ..., ttl_milliseconds: _Optional[int] = ...) -> None: ...

class SetResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeleteCommand(_message.Message):
    __slots__ = ("namespace", "key")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    key: bytes
    def __init__(self, namespace: _Optional[str] = ..., key: _Optional[bytes] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
