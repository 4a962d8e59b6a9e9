"""Reading a decoded JSON object into a frozen dataclass, with errors that name the field.

The loadgen's report and results.json are both read by `read`, once, into
frozen dataclasses; nothing after that reads a dictionary. `read` goes by
the dataclass's type hints (`dataclasses.fields`, `typing.get_type_hints`):
each field is the JSON member of its name, of its type (a number, whole
number, string, boolean, `Cap`, record, list, or object of string keys),
and the error says which field, by path (`config.channels`,
`points[3].client_ms.p999`). An absent (or null) member is the field's
default; else None for an optional field, empty for a list or a map,
else the error. A field whose JSON is not its type one to one names its
own reader (`reader`), and `absent` gives a field without a default the
value an absent member reads as.

Written by hand rather than with a validation library: jiffy-tune has no
runtime dependency for it (jsonschema is a test dependency), and what it
needs is typed values out, not only a yes or no. The libraries that build
dataclasses from dictionaries (dacite, cattrs) would be a dependency for
this one module and do not phrase errors by JSON path as the tests and the
report's command line expect.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from jiffy_tune.caps import Cap

T = TypeVar("T")
R = TypeVar("R")


class FieldError(ValueError):
    """A JSON object that is not what it should be; the message names the field."""


def kind(value: object) -> str:
    """What a JSON value is, for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    return "an array" if isinstance(value, list) else "an object"


class Fields:
    """One JSON object; each getter checks a field's type, `required_*` also that it is there."""

    def __init__(self, value: object, path: str, what: str = "the object") -> None:
        if not isinstance(value, dict):
            raise FieldError(f"{path or what}: expected an object, got {kind(value)}")
        self.fields: dict[str, Any] = value
        self.path = path

    def where(self, name: str | int) -> str:
        if isinstance(name, int):
            return f"{self.path}[{name}]"
        return f"{self.path}.{name}" if self.path else name

    def raw(self, name: str) -> Any:
        """A field as it is, for what is kept verbatim rather than read."""
        return self.fields.get(name)

    def _get(self, name: str, required: bool) -> object:
        value = self.fields.get(name)
        if value is None and required:
            raise self._missing(name)
        return value

    def _present(self, name: str, value: T | None) -> T:
        if value is None:
            raise self._missing(name)
        return value

    def _missing(self, name: str) -> FieldError:
        return FieldError(
            f"{self.where(name)} {'is null' if name in self.fields else 'is missing'}"
        )

    def wrong(self, name: str | int, expected: str, value: object) -> FieldError:
        return FieldError(f"{self.where(name)}: expected {expected}, got {kind(value)}")

    def required_number(self, name: str) -> float:
        return self._number(name, self._get(name, True))

    def _number(self, name: str | int, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.wrong(name, "a number", value)
        return float(value)

    def required_integer(self, name: str) -> int:
        return self._integer(name, self._get(name, True))

    def _integer(self, name: str | int, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.wrong(name, "a whole number", value)
        return value

    def string(self, name: str) -> str | None:
        value = self._get(name, False)
        return None if value is None else self._string(name, value)

    def _string(self, name: str | int, value: object) -> str:
        if not isinstance(value, str):
            raise self.wrong(name, "a string", value)
        return value

    def required_string(self, name: str) -> str:
        return self._present(name, self.string(name))

    def boolean(self, name: str) -> bool | None:
        value = self._get(name, False)
        return None if value is None else self._boolean(name, value)

    def _boolean(self, name: str | int, value: object) -> bool:
        if not isinstance(value, bool):
            raise self.wrong(name, "true or false", value)
        return value

    def required_boolean(self, name: str) -> bool:
        return self._present(name, self.boolean(name))

    def _cap(self, name: str | int, value: object) -> Cap:
        if value == "auto":
            return "auto"
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.wrong(name, 'a whole number or "auto"', value)
        return value

    def object(self, name: str) -> Fields | None:
        value = self._get(name, False)
        return None if value is None else Fields(value, self.where(name))

    def required_object(self, name: str) -> Fields:
        return Fields(self._get(name, True), self.where(name))

    def array(self, name: str) -> list[Any] | None:
        value = self._get(name, False)
        if value is not None and not isinstance(value, list):
            raise self.wrong(name, "an array", value)
        return value

    def integers(self, name: str) -> list[int] | None:
        items = self.array(name)
        if items is None:
            return None
        inner = Fields({}, self.where(name))
        return [inner._integer(index, item) for index, item in enumerate(items)]

    def pairs(self, name: str) -> list[tuple[float, int]] | None:
        """[seconds, limit] pairs (an in-flight limit history)."""
        items = self.array(name)
        if items is None:
            return None
        pairs = []
        for index, pair in enumerate(items):
            if not isinstance(pair, list) or len(pair) != 2:
                raise FieldError(
                    f"{self.where(name)}[{index}]: expected [seconds, limit], got {kind(pair)}"
                )
            entry = Fields({"seconds": pair[0], "limit": pair[1]}, f"{self.where(name)}[{index}]")
            pairs.append((entry.required_number("seconds"), entry.required_integer("limit")))
        return pairs


# A field's own reader: the object it is a member of, and its name.
Reader = Callable[[Fields, str], Any]
_READER = "jiffy_tune.reader"
_ABSENT = "jiffy_tune.absent"


def reader(read_with: Reader, **options: Any) -> Any:
    """A field read by `read_with` rather than by its type (`field` options pass on)."""
    return dataclasses.field(metadata={_READER: read_with}, **options)


def absent(value: object) -> Any:
    """A field without a default whose absent (or null) member reads as `value`."""
    return dataclasses.field(metadata={_ABSENT: value})


def read(cls: type[R], value: object, path: str = "", what: str = "the object") -> R:
    """The record `cls` from a decoded JSON object; FieldError names what is wrong."""
    return record(cls, Fields(value, path, what))


def record(cls: type[R], f: Fields) -> R:
    """The record `cls` from the members of `f`."""
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for each in fields(cls):  # type: ignore[arg-type]
        own = each.metadata.get(_READER)
        if own is not None:
            values[each.name] = own(f, each.name)
        elif f.raw(each.name) is not None:
            values[each.name] = _value(hints[each.name], f, each.name, f.raw(each.name))
        elif each.default is not dataclasses.MISSING:
            values[each.name] = each.default
        elif each.default_factory is not dataclasses.MISSING:
            values[each.name] = each.default_factory()
        elif _ABSENT in each.metadata:
            values[each.name] = each.metadata[_ABSENT]
        else:
            values[each.name] = _absent(hints[each.name], f, each.name)
    return cls(**values)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The type hints of a record's fields, resolved once per class."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = get_type_hints(cls)
    return hints


_CAP = frozenset(get_args(Cap))
# How a present member of each scalar type is checked.
_SCALARS: dict[Any, Callable[[Fields, str | int, object], Any]] = {
    float: Fields._number,
    int: Fields._integer,
    str: Fields._string,
    bool: Fields._boolean,
}


def _optional(hint: Any) -> tuple[bool, Any]:
    """Whether `hint` admits None, and what it is apart from None."""
    if get_origin(hint) not in (Union, types.UnionType):
        return False, hint
    rest = tuple(arg for arg in get_args(hint) if arg is not type(None))
    inner = functools.reduce(operator.or_, rest)
    return len(rest) < len(get_args(hint)), inner


def _absent(hint: Any, f: Fields, name: str) -> Any:
    """An absent or null member: None if optional, empty if a list or a map, else an error."""
    optional, inner = _optional(hint)
    if optional:
        return None
    origin = get_origin(inner)
    if origin is list:
        return []
    if origin in (dict, Mapping):
        return {}
    raise f._missing(name)


def _value(hint: Any, f: Fields, name: str | int, value: object) -> Any:
    """A present member `name` of `f` (or item of an array), as `hint` has it."""
    _, inner = _optional(hint)
    origin = get_origin(inner)
    scalar = _SCALARS.get(inner)
    if scalar is not None:
        return scalar(f, name, value)
    if frozenset(get_args(inner)) == _CAP:
        return f._cap(name, value)
    if isinstance(inner, type) and dataclasses.is_dataclass(inner):
        return record(inner, Fields(value, f.where(name)))
    if origin is list:
        if not isinstance(value, list):
            raise f.wrong(name, "an array", value)
        items = Fields({}, f.where(name))
        (item,) = get_args(inner)
        return [_value(item, items, index, each) for index, each in enumerate(value)]
    if origin in (dict, Mapping):
        members = Fields(value, f.where(name))
        _, item = get_args(inner)
        return {
            key: _absent(item, members, key) if each is None else _value(item, members, key, each)
            for key, each in members.fields.items()
        }
    raise TypeError(f"{f.where(name)}: no reader for {hint!r}")


class JsonRecord:
    """A frozen dataclass written as the JSON object of its fields, in their order
    (nested records by their own `as_json`, tuples as arrays)."""

    __slots__ = ()

    def as_json(self) -> dict[str, Any]:
        record: Any = self
        return {field.name: to_json(getattr(self, field.name)) for field in fields(record)}


def to_json(value: Any) -> Any:
    """A value of a record as JSON."""
    if isinstance(value, JsonRecord):
        return value.as_json()
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return value
