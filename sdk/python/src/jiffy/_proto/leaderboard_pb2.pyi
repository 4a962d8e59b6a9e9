from jiffy._proto import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class _Order(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ASCENDING: _ClassVar[_Order]
    DESCENDING: _ClassVar[_Order]
ASCENDING: _Order
DESCENDING: _Order

class _Element(_message.Message):
    __slots__ = ("id", "score")
    ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    id: int
    score: float
    def __init__(self, id: _Optional[int] = ..., score: _Optional[float] = ...) -> None: ...

class _RankedElement(_message.Message):
    __slots__ = ("id", "rank", "score")
    ID_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    id: int
    rank: int
    score: float
    def __init__(self, id: _Optional[int] = ..., rank: _Optional[int] = ..., score: _Optional[float] = ...) -> None: ...

class _RankRange(_message.Message):
    __slots__ = ("start_inclusive", "end_exclusive")
    START_INCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    END_EXCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    start_inclusive: int
    end_exclusive: int
    def __init__(self, start_inclusive: _Optional[int] = ..., end_exclusive: _Optional[int] = ...) -> None: ...

class _ScoreRange(_message.Message):
    __slots__ = ("unbounded_min", "min_inclusive", "unbounded_max", "max_exclusive")
    UNBOUNDED_MIN_FIELD_NUMBER: _ClassVar[int]
    MIN_INCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    UNBOUNDED_MAX_FIELD_NUMBER: _ClassVar[int]
    MAX_EXCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    unbounded_min: _common_pb2._Unbounded
    min_inclusive: float
    unbounded_max: _common_pb2._Unbounded
    max_exclusive: float
    def __init__(self, unbounded_min: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., min_inclusive: _Optional[float] = ..., unbounded_max: _Optional[_Union[_common_pb2._Unbounded, _Mapping]] = ..., max_exclusive: _Optional[float] = ...) -> None: ...

class _DeleteLeaderboardRequest(_message.Message):
    __slots__ = ("leaderboard",)
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    def __init__(self, leaderboard: _Optional[str] = ...) -> None: ...

class _GetLeaderboardLengthRequest(_message.Message):
    __slots__ = ("leaderboard",)
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    def __init__(self, leaderboard: _Optional[str] = ...) -> None: ...

class _GetLeaderboardLengthResponse(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class _UpsertElementsRequest(_message.Message):
    __slots__ = ("leaderboard", "elements")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    elements: _containers.RepeatedCompositeFieldContainer[_Element]
    def __init__(self, leaderboard: _Optional[str] = ..., elements: _Optional[_Iterable[_Union[_Element, _Mapping]]] = ...) -> None: ...

class _GetByRankRequest(_message.Message):
    __slots__ = ("leaderboard", "rank_range", "order")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    RANK_RANGE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    rank_range: _RankRange
    order: _Order
    def __init__(self, leaderboard: _Optional[str] = ..., rank_range: _Optional[_Union[_RankRange, _Mapping]] = ..., order: _Optional[_Union[_Order, str]] = ...) -> None: ...

class _GetByRankResponse(_message.Message):
    __slots__ = ("elements",)
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    elements: _containers.RepeatedCompositeFieldContainer[_RankedElement]
    def __init__(self, elements: _Optional[_Iterable[_Union[_RankedElement, _Mapping]]] = ...) -> None: ...

class _GetRankRequest(_message.Message):
    __slots__ = ("leaderboard", "ids", "order")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    ids: _containers.RepeatedScalarFieldContainer[int]
    order: _Order
    def __init__(self, leaderboard: _Optional[str] = ..., ids: _Optional[_Iterable[int]] = ..., order: _Optional[_Union[_Order, str]] = ...) -> None: ...

class _GetRankResponse(_message.Message):
    __slots__ = ("elements",)
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    elements: _containers.RepeatedCompositeFieldContainer[_RankedElement]
    def __init__(self, elements: _Optional[_Iterable[_Union[_RankedElement, _Mapping]]] = ...) -> None: ...

class _RemoveElementsRequest(_message.Message):
    __slots__ = ("leaderboard", "ids")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, leaderboard: _Optional[str] = ..., ids: _Optional[_Iterable[int]] = ...) -> None: ...

class _GetByScoreRequest(_message.Message):
    __slots__ = ("leaderboard", "score_range", "offset", "limit_elements", "order")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    SCORE_RANGE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    score_range: _ScoreRange
    offset: int
    limit_elements: int
    order: _Order
    def __init__(self, leaderboard: _Optional[str] = ..., score_range: _Optional[_Union[_ScoreRange, _Mapping]] = ..., offset: _Optional[int] = ..., limit_elements: _Optional[int] = ..., order: _Optional[_Union[_Order, str]] = ...) -> None: ...

class _GetByScoreResponse(_message.Message):
    __slots__ = ("elements",)
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    elements: _containers.RepeatedCompositeFieldContainer[_RankedElement]
    def __init__(self, elements: _Optional[_Iterable[_Union[_RankedElement, _Mapping]]] = ...) -> None: ...

class _GetCompetitionRankRequest(_message.Message):
    __slots__ = ("leaderboard", "ids", "order")
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    leaderboard: str
    ids: _containers.RepeatedScalarFieldContainer[int]
    order: _Order
    def __init__(self, leaderboard: _Optional[str] = ..., ids: _Optional[_Iterable[int]] = ..., order: _Optional[_Union[_Order, str]] = ...) -> None: ...

class _GetCompetitionRankResponse(_message.Message):
    __slots__ = ("elements",)
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    elements: _containers.RepeatedCompositeFieldContainer[_RankedElement]
    def __init__(self, elements: _Optional[_Iterable[_Union[_RankedElement, _Mapping]]] = ...) -> None: ...
