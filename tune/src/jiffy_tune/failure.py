"""What a failed loadgen said: a one-line headline and an excerpt of its stderr.

A loadgen that fails writes a Python traceback, a Node stack or a `loadgen:
...` line. What a reader needs is the exception line, near the end, and the
first line (what kind of output it is); the frames between are noise. The
headline goes into the point's `error` (progress line, tables), the excerpt
(first line, then the last few) into its `stderr_excerpt`.
"""

from __future__ import annotations

import re
import signal

EXCERPT_LAST_LINES = 4
# A line longer than this (a JSON blob, a minified stack) is cut in the middle.
LINE_CHARS = 400
PYTHON_TRACEBACK = "Traceback (most recent call last):"
# The version banner Node prints after an uncaught exception's stack.
NODE_BANNER = re.compile(r"^Node\.js v\d")


def _clip(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    half = LINE_CHARS // 2
    return f"{line[:half]} ... {line[-half:]}"


def _lines(stderr: str) -> list[str]:
    return [line.rstrip() for line in stderr.splitlines() if line.strip()]


def headline(stderr: str) -> str | None:
    """The line that says what went wrong, or None for an empty stderr.

    After a Python traceback, the first line back at the margin (the
    exception; frames are indented). Otherwise the last line at the margin
    with a word in it (Node's `Error: ...`, a `loadgen: ...` message whose
    continuation lines are indented), Node's version banner aside.
    """
    lines = _lines(stderr)
    if not lines:
        return None
    if PYTHON_TRACEBACK in lines:
        after = len(lines) - lines[::-1].index(PYTHON_TRACEBACK)
        for line in lines[after:]:
            if not line[0].isspace():
                return _clip(line)
    for line in reversed(lines):
        if not line[0].isspace() and re.search(r"[A-Za-z]", line) and not NODE_BANNER.match(line):
            return _clip(line)
    return _clip(lines[-1].strip())


def excerpt(stderr: str) -> str | None:
    """The first line and the last few of `stderr`, with a marker where lines were left out."""
    lines = [_clip(line) for line in _lines(stderr)]
    if not lines:
        return None
    if len(lines) <= EXCERPT_LAST_LINES + 2:
        return "\n".join(lines)
    left_out = len(lines) - 1 - EXCERPT_LAST_LINES
    return "\n".join([lines[0], f"[... {left_out} lines ...]", *lines[-EXCERPT_LAST_LINES:]])


def exit_reason(returncode: int) -> str:
    """`exit status 3`, or `killed by SIGKILL` for a process ended by a signal."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def describe(reason: str, stderr: str) -> tuple[str, str | None]:
    """(`error`, `stderr_excerpt`) of a failed point: the reason, then the headline."""
    line = headline(stderr)
    return (f"{reason}: {line}" if line else f"{reason} (nothing on stderr)"), excerpt(stderr)
