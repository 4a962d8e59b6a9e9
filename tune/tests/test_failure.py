"""A failed loadgen's stderr read down to its headline and an excerpt; the endpoint probe."""

from __future__ import annotations

import socket

import pytest

from jiffy_tune.failure import LINE_CHARS, describe, excerpt, exit_reason, headline
from jiffy_tune.reach import host_port, unreachable

PYTHON_TRACEBACK = """\
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "/repo/sdk/python/src/jiffy/loadgen/__main__.py", line 8, in <module>
    sys.exit(main(JiffyDriver, description="Load generator for the jiffy Python SDK"))
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/repo/sdk/python/src/jiffy/loadgen/_harness.py", line 169, in measure
    channels, cap = await driver.start(options)
  File "/repo/sdk/python/src/jiffy/_async_transport.py", line 132, in connect
    raise ConnectionError(
jiffy.ConnectionError: could not connect to 127.0.0.1:9 within 1 s: connection refused
"""

# A chained exception, then grpc's log lines written at exit.
CHAINED = """\
Traceback (most recent call last):
  File "a.py", line 1, in <module>
KeyError: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "a.py", line 3, in <module>
RuntimeError: the second one
  with a message on two lines
I0000 00:00:1732500000.000000 1234 fork_posix.cc:71] Other threads are currently calling into gRPC
"""

NODE_UNCAUGHT = """\
file:///repo/sdk/js/dist/loadgen.js:12
    throw new Error('boom');
    ^

Error: boom
    at file:///repo/sdk/js/dist/loadgen.js:12:11
    at ModuleJob.run (node:internal/modules/esm/module_job:195:25) {
  code: 'ERR_X'
}

Node.js v20.11.1
"""

# The official JS SDK's adapter: its message continues on an indented line.
LOADGEN_MESSAGE = """\
[2026-11-25T04:24:23.851Z] ERROR (Momento: CacheDataClient): Unable to connect to Momento
              Please contact Momento if this persists.
loadgen: Unable to connect to Momento: Unexpected connection state: IDLE.
              Please contact Momento if this persists.
"""


def test_a_python_traceback_is_headed_by_its_exception_line() -> None:
    assert headline(PYTHON_TRACEBACK) == (
        "jiffy.ConnectionError: could not connect to 127.0.0.1:9 within 1 s: connection refused"
    )


def test_the_last_traceback_counts_and_log_lines_after_it_do_not() -> None:
    assert headline(CHAINED) == "RuntimeError: the second one"


def test_a_node_stack_is_headed_by_its_error_not_the_version_banner() -> None:
    assert headline(NODE_UNCAUGHT) == "Error: boom"


def test_a_message_is_headed_by_its_last_line_at_the_margin() -> None:
    assert headline(LOADGEN_MESSAGE) == (
        "loadgen: Unable to connect to Momento: Unexpected connection state: IDLE."
    )
    assert headline("\n\n  only indented\n") == "only indented"
    assert headline("") is None
    assert headline(" \n\n") is None


def test_the_excerpt_is_the_first_line_and_the_last_four() -> None:
    text = excerpt(PYTHON_TRACEBACK)
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == "[... 5 lines ...]"
    assert lines[2:] == PYTHON_TRACEBACK.splitlines()[-4:]


def test_a_short_stderr_is_kept_whole_without_blank_lines() -> None:
    assert excerpt("one\n\ntwo\n") == "one\ntwo"
    assert excerpt("") is None


def test_long_lines_are_cut_in_the_middle() -> None:
    line = "x" * 1000 + "THE END"
    clipped = headline(line)
    assert clipped is not None
    assert clipped.endswith("THE END")
    assert " ... " in clipped
    assert len(clipped) <= LINE_CHARS + 5


def test_the_error_is_the_reason_and_the_headline() -> None:
    error, text = describe("exit status 1", PYTHON_TRACEBACK)
    assert error == (
        "exit status 1: jiffy.ConnectionError: could not connect to 127.0.0.1:9 within 1 s: "
        "connection refused"
    )
    assert text == excerpt(PYTHON_TRACEBACK)
    timed_out = describe("timed out after 70 s", "")
    assert timed_out == ("timed out after 70 s (nothing on stderr)", None)


def test_exit_reasons() -> None:
    assert exit_reason(3) == "exit status 3"
    assert exit_reason(-9) == "killed by SIGKILL"
    assert exit_reason(-200) == "killed by signal 200"


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("127.0.0.1:8080", ("127.0.0.1", 8080)),
        ("[::1]:9000", ("::1", 9000)),
        ("cache.internal", ("cache.internal", 8080)),
        ("http://cache.internal:81", ("cache.internal", 81)),
        ("https://cache.internal", ("cache.internal", 443)),
    ],
)
def test_endpoint_forms(endpoint: str, expected: tuple[str, int]) -> None:
    assert host_port(endpoint) == expected


def test_a_bad_endpoint_is_refused() -> None:
    with pytest.raises(ValueError, match="not an endpoint"):
        host_port("ftp://x:1:2")


def test_the_probe_tells_a_listening_port_from_a_closed_one() -> None:
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        assert unreachable(f"127.0.0.1:{port}") is None
    # Closed now (nothing else binds a port the kernel just handed out and took back).
    assert unreachable(f"127.0.0.1:{port}") == "connection refused"
    assert unreachable("not an endpoint at all") is None
