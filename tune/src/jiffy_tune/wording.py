"""Phrases shared by the statements and the presets."""

from __future__ import annotations


def workers(concurrency: int) -> str:
    """How to reproduce a concurrency in an application."""
    if concurrency == 1:
        return "run 1 request at a time (1 worker)"
    return f"run {concurrency} requests concurrently ({concurrency} workers)"
