from jiffy._proto import common_pb2 as _common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class _PublishRequest(_message.Message):
    __slots__ = ("cache_name", "topic", "value")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    topic: str
    value: _TopicValue
    def __init__(self, cache_name: _Optional[str] = ..., topic: _Optional[str] = ..., value: _Optional[_Union[_TopicValue, _Mapping]] = ...) -> None: ...

class _SubscriptionRequest(_message.Message):
    __slots__ = ("cache_name", "topic", "resume_at_topic_sequence_number", "sequence_page")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    RESUME_AT_TOPIC_SEQUENCE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_PAGE_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    topic: str
    resume_at_topic_sequence_number: int
    sequence_page: int
    def __init__(self, cache_name: _Optional[str] = ..., topic: _Optional[str] = ..., resume_at_topic_sequence_number: _Optional[int] = ..., sequence_page: _Optional[int] = ...) -> None: ...

class _SubscriptionItem(_message.Message):
    __slots__ = ("item", "discontinuity", "heartbeat")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    DISCONTINUITY_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    item: _TopicItem
    discontinuity: _Discontinuity
    heartbeat: _Heartbeat
    def __init__(self, item: _Optional[_Union[_TopicItem, _Mapping]] = ..., discontinuity: _Optional[_Union[_Discontinuity, _Mapping]] = ..., heartbeat: _Optional[_Union[_Heartbeat, _Mapping]] = ...) -> None: ...

class _TopicItem(_message.Message):
    __slots__ = ("topic_sequence_number", "value", "publisher_id", "sequence_page")
    TOPIC_SEQUENCE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PUBLISHER_ID_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_PAGE_FIELD_NUMBER: _ClassVar[int]
    topic_sequence_number: int
    value: _TopicValue
    publisher_id: str
    sequence_page: int
    def __init__(self, topic_sequence_number: _Optional[int] = ..., value: _Optional[_Union[_TopicValue, _Mapping]] = ..., publisher_id: _Optional[str] = ..., sequence_page: _Optional[int] = ...) -> None: ...

class _TopicValue(_message.Message):
    __slots__ = ("text", "binary")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    BINARY_FIELD_NUMBER: _ClassVar[int]
    text: str
    binary: bytes
    def __init__(self, text: _Optional[str] = ..., binary: _Optional[bytes] = ...) -> None: ...

class _Discontinuity(_message.Message):
    __slots__ = ("last_topic_sequence", "new_topic_sequence", "new_sequence_page")
    LAST_TOPIC_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    NEW_TOPIC_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    NEW_SEQUENCE_PAGE_FIELD_NUMBER: _ClassVar[int]
    last_topic_sequence: int
    new_topic_sequence: int
    new_sequence_page: int
    def __init__(self, last_topic_sequence: _Optional[int] = ..., new_topic_sequence: _Optional[int] = ..., new_sequence_page: _Optional[int] = ...) -> None: ...

class _Heartbeat(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
