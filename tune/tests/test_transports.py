"""Which transports each SDK is swept over, from --transports and what the server offers."""

from __future__ import annotations

import pytest
from conftest import as_entry

from jiffy_tune import transports

SDKS = ["jiffy-python", "jiffy-js", "momento-python", "momento-js"]


def test_by_default_each_sdk_runs_its_default_and_protosocket_where_it_can() -> None:
    assert transports.resolve(SDKS, None, protosocket=True) == {
        "jiffy-python": ["grpc", "protosocket"],
        "jiffy-js": ["http2", "protosocket"],
        "momento-python": ["grpc"],
        "momento-js": ["grpc"],
    }


def test_without_a_protosocket_port_the_default_is_each_sdk_s_own() -> None:
    assert transports.resolve(SDKS, None, protosocket=False) == {
        "jiffy-python": ["grpc"],
        "jiffy-js": ["http2"],
        "momento-python": ["grpc"],
        "momento-js": ["grpc"],
    }


def test_grpc_names_each_sdk_s_default_grpc_transport() -> None:
    chosen = transports.resolve(SDKS, ["grpc", "protosocket"], protosocket=True)
    assert chosen["jiffy-js"] == ["http2", "protosocket"]
    assert chosen["jiffy-python"] == ["grpc", "protosocket"]


def test_the_order_asked_is_kept_and_its_first_is_the_main_one() -> None:
    chosen = transports.resolve(["jiffy-js"], ["protosocket", "grpc-js", "http2"], True)
    assert chosen == {"jiffy-js": ["protosocket", "grpc-js", "http2"]}


def test_an_sdk_with_one_transport_runs_it_whatever_is_asked() -> None:
    chosen = transports.resolve(["jiffy-python", "momento-python"], ["protosocket"], True)
    assert chosen == {"jiffy-python": ["protosocket"], "momento-python": ["grpc"]}


def test_a_name_no_sdk_speaks_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown transport quic for jiffy-python; known: grpc"):
        transports.resolve(["jiffy-python"], ["grpc", "quic"], True)


def test_an_sdk_with_a_choice_left_with_none_is_refused() -> None:
    with pytest.raises(ValueError, match="none of jiffy-python's transports"):
        transports.resolve(["jiffy-python", "jiffy-js"], ["grpc-js"], True)


def test_results_from_before_the_transport_dimension_read_as_each_sdk_s_default() -> None:
    assert transports.given_or_default("jiffy-js", None) == "http2"
    assert transports.given_or_default("jiffy-python", None) == "grpc"
    assert transports.given_or_default("momento-js", None) == "grpc"
    assert transports.given_or_default("jiffy-js", "protosocket") == "protosocket"
    old = {"sdk": "jiffy-js", "channels": 1, "concurrency": 1, "max_concurrent_requests": 1,
           "rate": None, "rounds_ok": 1}  # fmt: skip
    assert as_entry(old).transport == "http2"


def test_only_our_sdks_loadgens_are_given_a_transport() -> None:
    assert transports.chooses("jiffy-python")
    assert transports.chooses("jiffy-js")
    assert not transports.chooses("momento-js")
    assert not transports.chooses("some-loadgen-of-my-own")
