from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Present(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PresentAndNotEqual(_message.Message):
    __slots__ = ("value_to_check",)
    VALUE_TO_CHECK_FIELD_NUMBER: _ClassVar[int]
    value_to_check: bytes
    def __init__(self, value_to_check: _Optional[bytes] = ...) -> None: ...

class Absent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Equal(_message.Message):
    __slots__ = ("value_to_check",)
    VALUE_TO_CHECK_FIELD_NUMBER: _ClassVar[int]
    value_to_check: bytes
    def __init__(self, value_to_check: _Optional[bytes] = ...) -> None: ...

class AbsentOrEqual(_message.Message):
    __slots__ = ("value_to_check",)
    VALUE_TO_CHECK_FIELD_NUMBER: _ClassVar[int]
    value_to_check: bytes
    def __init__(self, value_to_check: _Optional[bytes] = ...) -> None: ...

class NotEqual(_message.Message):
    __slots__ = ("value_to_check",)
    VALUE_TO_CHECK_FIELD_NUMBER: _ClassVar[int]
    value_to_check: bytes
    def __init__(self, value_to_check: _Optional[bytes] = ...) -> None: ...
