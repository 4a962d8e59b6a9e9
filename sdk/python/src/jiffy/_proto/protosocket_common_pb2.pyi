from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OK: _ClassVar[Status]
    CANCELLED: _ClassVar[Status]
    UNKNOWN: _ClassVar[Status]
    INVALID_ARGUMENT: _ClassVar[Status]
    DEADLINE_EXCEEDED: _ClassVar[Status]
    NOT_FOUND: _ClassVar[Status]
    ALREADY_EXISTS: _ClassVar[Status]
    PERMISSION_DENIED: _ClassVar[Status]
    RESOURCE_EXHAUSTED: _ClassVar[Status]
    FAILED_PRECONDITION: _ClassVar[Status]
    ABORTED: _ClassVar[Status]
    OUT_OF_RANGE: _ClassVar[Status]
    UNIMPLEMENTED: _ClassVar[Status]
    INTERNAL: _ClassVar[Status]
    UNAVAILABLE: _ClassVar[Status]
    DATA_LOSS: _ClassVar[Status]
    UNAUTHENTICATED: _ClassVar[Status]
OK: Status
CANCELLED: Status
UNKNOWN: Status
INVALID_ARGUMENT: Status
DEADLINE_EXCEEDED: Status
NOT_FOUND: Status
ALREADY_EXISTS: Status
PERMISSION_DENIED: Status
RESOURCE_EXHAUSTED: Status
FAILED_PRECONDITION: Status
ABORTED: Status
OUT_OF_RANGE: Status
UNIMPLEMENTED: Status
INTERNAL: Status
UNAVAILABLE: Status
DATA_LOSS: Status
UNAUTHENTICATED: Status

class CommandError(_message.Message):
    __slots__ = ("code", "message", "reason")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    code: Status
    message: str
    reason: str
    def __init__(self, code: _Optional[_Union[Status, str]] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
