"""`__all__` is exactly what is public, and everything in it exists."""

from __future__ import annotations

import types

import jiffy


def test_all_is_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(jiffy).items()
        if not name.startswith("_")
        and not (isinstance(value, types.ModuleType) and value.__name__.startswith("jiffy._"))
        and name != "annotations"
    }
    assert set(jiffy.__all__) - {"__version__"} == public
    assert len(jiffy.__all__) == len(set(jiffy.__all__))


def test_names_shared_with_the_typescript_sdk() -> None:
    for name in ("CacheError", "ConnectionError", "TimeoutError", "AuthenticationError",
                 "PermissionError", "NotFoundError", "CacheNotFoundError", "AlreadyExistsError",
                 "LimitExceededError", "InvalidArgumentError", "ServerError"):  # fmt: skip
        assert issubclass(getattr(jiffy, name), jiffy.CacheError)
    for preset in ("laptop", "in_region", "low_latency"):
        assert getattr(jiffy.presets, preset).name == preset
    assert jiffy.presets.by_name("lambda").name == "lambda"
