"""examples/collections_tour.py (the README's Collections section) runs and
prints what the README says it does. (Not collections.py: run as a script,
that name would shadow the standard library's `collections` module.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import Server

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

EXPECTED = """\
profile: {'name': 'Ada', 'visits': '3'}
email: None
recent: [b'pricing', b'blog', b'docs']
last two: [b'blog', b'docs']
tags: [b'cache', b'grpc', b'rust']
has grpc: True
top 2: [(b'cy', 9.0), (b'bob', 9.0)]
rank of bob: 1
weekly: 3 [(b'bob', 18.0), (b'cy', 18.0)]
stored: True
stored again: False
"""


def code_lines(text: str) -> list[str]:
    """Lines of code, stripped of indentation and of comments after them."""
    lines = (line.split("  # ")[0].strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def test_readme_collections_snippet_is_from_the_tour() -> None:
    readme = (EXAMPLES.parent / "README.md").read_text()
    section = readme.split("## Collections", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    tour = set(code_lines((EXAMPLES / "collections_tour.py").read_text()))
    stray = [line for line in code_lines(snippet) if line not in tour]
    assert code_lines(snippet)
    assert not stray, f"README lines not in examples/collections_tour.py: {stray}"


def test_collections_example(server: Server) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIFFY_", "MOMENTO_"))}
    env["JIFFY_ENDPOINT"] = server.address
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "collections_tour.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED
