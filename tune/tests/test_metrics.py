from __future__ import annotations

import math

import pytest
from conftest import FIXTURES

from jiffy_tune.metrics import Histogram, diff, latency_ms, parse_histogram, quantile

INF = math.inf


def test_parses_only_the_data_rpcs_of_a_real_scrape() -> None:
    text = (FIXTURES / "metrics_sample.txt").read_text()
    histogram = parse_histogram(text)
    counts = {
        line.split("{")[1].split('"')[1]: float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith("jiffy_request_duration_seconds_count")
    }
    assert counts["CreateCache"] > 0  # present in the scrape, and left out below
    assert histogram.count == counts["Get"] + counts["Set"]
    bounds = [bound for bound, _ in histogram.buckets]
    assert bounds == sorted(bounds)
    assert bounds[0] == pytest.approx(1e-5)
    assert bounds[1] / bounds[0] == pytest.approx(1.25)
    assert math.isinf(bounds[-1])


def test_a_window_is_the_difference_of_two_scrapes() -> None:
    before = Histogram(((0.001, 10.0), (0.002, 20.0), (INF, 20.0)))
    after = Histogram(((0.001, 15.0), (0.002, 40.0), (INF, 41.0)))
    assert diff(after, before).buckets == ((0.001, 5.0), (0.002, 20.0), (INF, 21.0))


def test_a_scrape_against_itself_is_an_empty_window() -> None:
    text = (FIXTURES / "metrics_sample.txt").read_text()
    window = diff(parse_histogram(text), parse_histogram(text))
    assert window.count == 0
    assert quantile(window, 0.999) is None
    summary = latency_ms(window).as_json()
    assert summary["p999"] is None
    assert summary["count"] == 0


def test_quantiles_interpolate_linearly_inside_the_bucket() -> None:
    # 100 requests: 50 under 1 ms, 50 between 1 and 2 ms.
    window = Histogram(((0.001, 50.0), (0.002, 100.0), (INF, 100.0)))
    assert quantile(window, 0.25) == pytest.approx(0.0005)
    assert quantile(window, 0.5) == pytest.approx(0.001)
    assert quantile(window, 0.99) == pytest.approx(0.00198)


def test_all_requests_in_one_bucket() -> None:
    window = Histogram(((0.001, 0.0), (0.00125, 40.0), (INF, 40.0)))
    p50 = quantile(window, 0.5)
    assert p50 == pytest.approx(0.001125)
    p999 = quantile(window, 0.999)
    assert p999 is not None
    assert 0.001 < p999 < 0.00125


def test_a_rank_in_the_inf_bucket_answers_the_highest_finite_bound() -> None:
    window = Histogram(((0.001, 90.0), (0.002, 99.0), (INF, 100.0)))
    assert quantile(window, 0.999) == pytest.approx(0.002)


def test_server_ms_is_in_milliseconds_with_its_resolution() -> None:
    window = Histogram(((0.001, 50.0), (0.002, 100.0), (INF, 100.0)))
    summary = latency_ms(window).as_json()
    assert summary["p50"] == pytest.approx(1.0)
    assert summary["count"] == 100
    assert summary["resolution"] == "histogram buckets 1-1.5-2-3-5-7.5 per decade, up to +-25%"
