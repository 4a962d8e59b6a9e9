"""`__all__` is exactly what is public, and everything in it exists."""

from __future__ import annotations

import json
import subprocess
import sys

import jiffy


def test_all_is_exactly_the_public_names() -> None:
    # A fresh interpreter: other tests import submodules (jiffy.cli, ...),
    # which would show up as attributes of the package here.
    probe = (
        "import json, types, jiffy;"
        "print(json.dumps(sorted(n for n, v in vars(jiffy).items() if not n.startswith('_')"
        " and not (isinstance(v, types.ModuleType) and v.__name__.startswith('jiffy._'))"
        " and n != 'annotations')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    public = set(json.loads(done.stdout))
    assert set(jiffy.__all__) - {"__version__"} == public
    assert len(jiffy.__all__) == len(set(jiffy.__all__))
    assert hasattr(jiffy, "__version__")


def test_names_shared_with_the_typescript_sdk() -> None:
    for name in ("CacheError", "ConnectionError", "TimeoutError", "AuthenticationError",
                 "PermissionError", "NotFoundError", "CacheNotFoundError", "AlreadyExistsError",
                 "LimitExceededError", "InvalidArgumentError", "ServerError"):  # fmt: skip
        assert issubclass(getattr(jiffy, name), jiffy.CacheError)
    for preset in ("laptop", "in_region", "low_latency"):
        assert getattr(jiffy.presets, preset).name == preset
    assert jiffy.presets.by_name("lambda").name == "lambda"
