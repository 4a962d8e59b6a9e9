"""Phrases shared by the statements, the presets, the console and the report."""

from __future__ import annotations

# The project's rule for a figure to count as a measurement: the median of at
# least this many rounds. Fewer, and one slow moment of a shared machine can
# decide a recommendation.
MEASURED_ROUNDS = 3


def workers(concurrency: int) -> str:
    """How to reproduce a concurrency in an application."""
    if concurrency == 1:
        return "run 1 request at a time (1 worker)"
    return f"run {concurrency} requests concurrently ({concurrency} workers)"


def noisy(rounds: int) -> bool:
    """Whether figures from `rounds` ok rounds are too few to count as a measurement."""
    return rounds < MEASURED_ROUNDS


def rounds(n: int) -> str:
    return f"{n} round" if n == 1 else f"{n} rounds"


def noise_label(rounds_ok: int) -> str:
    """A short label for figures from too few rounds, saying how to measure instead."""
    return (
        f"Noisy: {rounds(rounds_ok)}, not a measurement; "
        f"--rounds {MEASURED_ROUNDS} or more takes medians"
    )


NOT_ENOUGH_ROUNDS = "not enough rounds to recommend"


def not_enough_rounds(rounds_ok: int) -> str:
    """Why a point under the target is not recommended: too few rounds behind it."""
    return (
        f"{NOT_ENOUGH_ROUNDS}: its figures come from {rounds(rounds_ok)}, and a recommendation "
        f"takes the median of at least {MEASURED_ROUNDS} (--rounds {MEASURED_ROUNDS} or more)"
    )


def noise_notice(rounds_per_point: int) -> str:
    """The sentence heading a sweep run with too few rounds."""
    figures = (
        "comes from a single run of its point"
        if rounds_per_point == 1
        else f"is the median of only {rounds_per_point} runs"
    )
    return (
        f"Noisy: {rounds(rounds_per_point)} per point. Every figure {figures} and may not "
        f"repeat; a measurement is the median of at least {MEASURED_ROUNDS} rounds, so nothing "
        f"is recommended and no preset is written: run again with --rounds {MEASURED_ROUNDS} "
        "or more."
    )


def higher(name: str, sep: str = " ") -> str:
    """A column where more is better, labelled so; `sep` goes between name and direction."""
    return f"{name}{sep}(higher is better)"


def lower(name: str, sep: str = " ") -> str:
    """A column where less is better, labelled so."""
    return f"{name}{sep}(lower is better)"
