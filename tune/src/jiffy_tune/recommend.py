"""The recommendation rule: most throughput whose p99.9 meets the target.

Eligible: a configuration with at least one ok round, no errors, and a median
client p99.9 strictly below the target. The highest rps wins, but among the
eligible within 3% of the best, the SDK's default transport, then fewer
channels, then lower concurrency win: on a shared machine a 1-2% difference
is noise, and the simpler setting is the better bet (the default transport
needs no second server port and carries every call).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jiffy_tune import caps, transports
from jiffy_tune.snippets import Where, preset_for
from jiffy_tune.wording import noise_label, noisy, workers

NEAR_BEST_SHARE = 0.03


def eligible(entry: dict[str, Any], target_ms: float) -> bool:
    client = entry["client_ms"]
    return (
        entry["rounds_ok"] >= 1
        and entry["errors_total"] == 0
        and client is not None
        and entry["rps"] is not None
        and client["p999"] < target_ms
    )


def pick(entries: Sequence[dict[str, Any]], target_ms: float) -> dict[str, Any] | None:
    candidates = [entry for entry in entries if eligible(entry, target_ms)]
    if not candidates:
        return None
    best_rps = max(entry["rps"] for entry in candidates)
    near = [entry for entry in candidates if entry["rps"] >= best_rps * (1 - NEAR_BEST_SHARE)]
    return min(near, key=lambda e: (not _on_default(e), e["channels"], e["concurrency"], -e["rps"]))


def _on_default(entry: dict[str, Any]) -> bool:
    sdk = entry["sdk"]
    return transports.of_entry(sdk, entry) == transports.default(sdk)


def configuration(entry: dict[str, Any]) -> str:
    """Channels, cap and concurrency: what a configuration sets besides its transport."""
    channels = entry["channels"]
    return (
        f"{channels} channel{'s' if channels != 1 else ''}, "
        f"cap {caps.label(entry['max_concurrent_requests'])}, concurrency {entry['concurrency']}"
    )


def recommend(
    sdk: str,
    entries: Sequence[dict[str, Any]],
    target_ms: float,
    runtime_flags: Sequence[str] = (),
    where: Where | None = None,
) -> dict[str, Any]:
    """The recommendation of one SDK for one target, from its summary entries.

    `runtime_flags`: the node flags the SDK was measured with; part of the
    configuration, so the statement and the preset name them. `where`: the
    sweep's endpoint and cache, for the preset. `noisy`: the figures stated
    come from fewer ok rounds than a measurement takes (wording.MEASURED_ROUNDS).
    """
    mine = [entry for entry in entries if entry["sdk"] == sdk]
    chosen = pick(mine, target_ms)
    if chosen is None:
        statement, noisy_figures = _unmet(sdk, mine, target_ms)
        return {
            "sdk": sdk,
            "target_ms": target_ms,
            "met": False,
            "transport": None,
            "point": None,
            "statement": statement,
            "preset": None,
            "noisy": noisy_figures,
        }
    best_rps = max(e["rps"] for e in mine if eligible(e, target_ms))
    statement = (
        f"{sdk}: {chosen['rps']:,.0f} rps at p99.9 {chosen['client_ms']['p999']:g} ms "
        f"(target < {target_ms:g} ms) over {transports.of_entry(sdk, chosen)} "
        f"with {configuration(chosen)}; "
        f"{workers(chosen['concurrency'])}"
    )
    if runtime_flags:
        statement += f"; measured with node {' '.join(runtime_flags)}"
    if chosen["rps"] < best_rps:
        statement += (
            f". Chosen over the best ({best_rps:,.0f} rps) because it is within 3% and "
            "simpler: the SDK's default transport, fewer channels or lower concurrency"
        )
    if noisy(chosen["rounds_ok"]):
        statement += f". {noise_label(chosen['rounds_ok'])}"
    return {
        "sdk": sdk,
        "target_ms": target_ms,
        "met": True,
        "transport": transports.of_entry(sdk, chosen),
        "point": chosen,
        "statement": statement,
        "preset": preset_for(sdk, chosen, target_ms, runtime_flags, where),
        "noisy": noisy(chosen["rounds_ok"]),
    }


def _unmet(sdk: str, entries: Sequence[dict[str, Any]], target_ms: float) -> tuple[str, bool]:
    """The statement for a target nothing met, and whether its figure is noisy."""
    measured = [e for e in entries if e["rounds_ok"] >= 1 and e["client_ms"] is not None]
    if not measured:
        return f"{sdk}: no point met p99.9 < {target_ms:g} ms; no point completed", False
    lowest = min(measured, key=lambda e: e["client_ms"]["p999"])
    statement = (
        f"{sdk}: no point met p99.9 < {target_ms:g} ms; the lowest p99.9 was "
        f"{lowest['client_ms']['p999']:g} ms ({transports.of_entry(sdk, lowest)}, "
        f"c={lowest['concurrency']}, ch={lowest['channels']})"
    )
    with_errors = [
        e for e in measured if e["errors_total"] > 0 and e["client_ms"]["p999"] < target_ms
    ]
    if with_errors:
        statement += (
            f"; {len(with_errors)} point{'s' if len(with_errors) != 1 else ''} under the "
            "target had errors and did not count"
        )
    if noisy(lowest["rounds_ok"]):
        statement += f". {noise_label(lowest['rounds_ok'])}"
        return statement, True
    return statement, False


def recommend_all(
    sdks: Sequence[str],
    entries: Sequence[dict[str, Any]],
    targets_ms: Sequence[float],
    runtime_flags: Mapping[str, Sequence[str]] | None = None,
    where: Where | None = None,
) -> list[dict[str, Any]]:
    flags = runtime_flags or {}
    return [
        recommend(sdk, entries, target, flags.get(sdk, ()), where)
        for sdk in sdks
        for target in targets_ms
    ]


def by_transport(
    sdks: Sequence[str], entries: Sequence[dict[str, Any]], targets_ms: Sequence[float]
) -> list[dict[str, Any]]:
    """Per SDK swept over more than one transport, transport and target: the
    configuration the rule picks among that transport's alone (`point`, None
    if none met the target). What each transport gives, beside the one chosen."""
    rows = []
    for sdk in sdks:
        mine = [entry for entry in entries if entry["sdk"] == sdk]
        names = list(dict.fromkeys(transports.of_entry(sdk, entry) for entry in mine))
        if len(names) < 2:
            continue
        for target in targets_ms:
            for name in names:
                over = [entry for entry in mine if transports.of_entry(sdk, entry) == name]
                rows.append(
                    {
                        "sdk": sdk,
                        "transport": name,
                        "target_ms": target,
                        "point": pick(over, target),
                    }
                )
    return rows
