"""Reading a decoded JSON object field by field, with errors that name the field.

The loadgen's report and results.json are both read through `Fields`, once,
into frozen dataclasses; nothing after that reads a dictionary. Written by
hand rather than with a validation library: jiffy-tune has no runtime
dependency for it (jsonschema is a test dependency), and what it needs is
typed values out, not only a yes or no: an absent optional field is None,
a present one must have its type, and the error says which field, by path
(`config.channels`, `points[3].client_ms.p999`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, TypeVar

from jiffy_tune.caps import Cap

T = TypeVar("T")


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

    def names(self) -> list[str]:
        return list(self.fields)

    def where(self, name: str | int) -> str:
        if isinstance(name, int):
            return f"{self.path}[{name}]"
        return f"{self.path}.{name}" if self.path else name

    def has(self, name: str) -> bool:
        return name in self.fields

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

    def number(self, name: str) -> float | None:
        value = self._get(name, False)
        return None if value is None else self._number(name, value)

    def required_number(self, name: str) -> float:
        return self._number(name, self._get(name, True))

    def _number(self, name: str | int, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.wrong(name, "a number", value)
        return float(value)

    def integer(self, name: str) -> int | None:
        value = self._get(name, False)
        return None if value is None else self._integer(name, value)

    def required_integer(self, name: str) -> int:
        return self._integer(name, self._get(name, True))

    def _integer(self, name: str | int, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.wrong(name, "a whole number", value)
        return value

    def string(self, name: str) -> str | None:
        value = self._get(name, False)
        if value is not None and not isinstance(value, str):
            raise self.wrong(name, "a string", value)
        return value

    def required_string(self, name: str) -> str:
        return self._present(name, self.string(name))

    def boolean(self, name: str) -> bool | None:
        value = self._get(name, False)
        if value is not None and not isinstance(value, bool):
            raise self.wrong(name, "true or false", value)
        return value

    def required_boolean(self, name: str) -> bool:
        return self._present(name, self.boolean(name))

    def cap(self, name: str) -> Cap | None:
        value = self._get(name, False)
        if value is None or value == "auto":
            return "auto" if value else None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.wrong(name, 'a whole number or "auto"', value)
        return value

    def required_cap(self, name: str) -> Cap:
        return self._present(name, self.cap(name))

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

    def objects(self, name: str) -> list[Fields]:
        """An array of objects (absent: none)."""
        items = self.array(name) or []
        return [Fields(item, f"{self.where(name)}[{index}]") for index, item in enumerate(items)]

    def integers(self, name: str) -> list[int] | None:
        items = self.array(name)
        if items is None:
            return None
        inner = Fields({}, self.where(name))
        return [inner._integer(index, item) for index, item in enumerate(items)]

    def numbers(self, name: str) -> list[float] | None:
        items = self.array(name)
        if items is None:
            return None
        inner = Fields({}, self.where(name))
        return [inner._number(index, item) for index, item in enumerate(items)]

    def strings(self, name: str) -> list[str] | None:
        items = self.array(name)
        if items is None:
            return None
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise Fields({}, self.where(name)).wrong(index, "a string", item)
        return list(items)

    def caps(self, name: str) -> list[Cap] | None:
        items = self.array(name)
        if items is None:
            return None
        inner = Fields({str(i): item for i, item in enumerate(items)}, self.where(name))
        return [inner.required_cap(str(i)) for i in range(len(items))]

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

    def string_map(self, name: str) -> dict[str, str]:
        inner = self.object(name)
        if inner is None:
            return {}
        return {key: inner.required_string(key) for key in inner.names()}

    def integer_map(self, name: str) -> dict[str, int]:
        inner = self.object(name)
        if inner is None:
            return {}
        return {key: inner.required_integer(key) for key in inner.names()}


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
