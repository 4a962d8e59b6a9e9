"""The SDK's in-flight cap as a sweep sees it: a number, or `auto`.

A fixed cap is a whole number (0 = no cap); `auto` is our SDKs' adaptive
limit (`max_concurrent_requests="auto"` / `maxConcurrentRequests: 'auto'`),
which the loadgens take as `--max-concurrent-requests auto` (docs/LOADGEN.md).
Only our SDKs' loadgens have it, and only they can send the fault-injection
header of `--delay-ms`: the official SDKs' drivers refuse both (exit status 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeGuard

AUTO: Literal["auto"] = "auto"
Cap = int | Literal["auto"]
# The loadgens that take `--max-concurrent-requests auto` and `--delay-ms`.
JIFFY_SDKS = ("jiffy-python", "jiffy-js")


def parse(text: str) -> Cap:
    """One `--max-concurrent-requests` value: `auto`, or a whole number of 0 or more."""
    word = text.strip()
    if word == AUTO:
        return AUTO
    try:
        value = int(word)
    except ValueError:
        raise ValueError(
            f"{word!r} is neither auto nor a whole number of 0 (no cap) or more"
        ) from None
    if value < 0:
        raise ValueError(f"{value} is negative: a cap is auto, 0 (no cap) or more")
    return value


def is_auto(cap: object) -> TypeGuard[Literal["auto"]]:
    return cap == AUTO


def label(cap: object) -> str:
    """How a cap reads in a label or a sentence: `auto`, `none` (0), or the number."""
    if is_auto(cap):
        return AUTO
    return "none" if not cap else str(cap)


def has_auto(sdk: str) -> bool:
    """Whether `sdk`'s loadgen takes `--max-concurrent-requests auto`."""
    return sdk in JIFFY_SDKS


def sends_delay(sdk: str) -> bool:
    """Whether `sdk`'s loadgen takes `--delay-ms` (sends the fault-injection header)."""
    return sdk in JIFFY_SDKS


def for_sdk(sdk: str, caps: Sequence[Cap]) -> list[Cap]:
    """The caps swept for `sdk`: all of them, but `auto` only for an SDK that has it."""
    return [cap for cap in caps if not is_auto(cap) or has_auto(sdk)]


def refused_auto(sdks: Sequence[str], caps: Sequence[Cap]) -> list[str]:
    """The SDKs left with no cap to sweep: those without `auto` when only `auto` was asked."""
    return [sdk for sdk in sdks if not for_sdk(sdk, caps)]


def skipped_auto(sdks: Sequence[str], caps: Sequence[Cap]) -> list[str]:
    """The SDKs whose `auto` points are skipped (they sweep the fixed caps only)."""
    if AUTO not in caps:
        return []
    return [sdk for sdk in sdks if not has_auto(sdk) and for_sdk(sdk, caps)]
