"""Ready-to-paste client configuration for a recommended point, per SDK.

Each snippet uses the SDK's public configuration API (the same calls its
loadgen makes), so what is pasted is what was measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jiffy_tune.wording import workers

# Below this target the base preset is the low-latency one (shorter deadline).
LOW_LATENCY_BELOW_MS = 10.0

Snippet = Callable[[dict[str, Any], str], str]


def base_preset(target_ms: float) -> str:
    return "in_region" if target_ms >= LOW_LATENCY_BELOW_MS else "low_latency"


def _header(entry: dict[str, Any], target_ms: float, comment: str) -> str:
    client = entry["client_ms"]
    return (
        f"{comment} jiffy-tune: {entry['rps']:,.0f} rps at p99.9 {client['p999']:g} ms "
        f"(target < {target_ms:g} ms).\n"
        f"{comment} {workers(entry['concurrency']).capitalize()}.\n"
    )


def jiffy_python(entry: dict[str, Any], base: str) -> str:
    return (
        "from jiffy import AsyncCacheClient\n"
        f"from jiffy.presets import {base}\n\n"
        f"config = {base}.latest().replace("
        f"channels={entry['channels']}, "
        f"max_concurrent_requests={entry['max_concurrent_requests']})\n"
        "client = AsyncCacheClient(config=config)  # endpoint from JIFFY_ENDPOINT\n"
    )


def jiffy_js(entry: dict[str, Any], base: str) -> str:
    name = {"in_region": "inRegion", "low_latency": "lowLatency"}[base]
    return (
        "import { CacheClient, presets } from '@jiffy/sdk';\n\n"
        "const client = await CacheClient.create({\n"
        f"  ...presets.{name}.latest(),\n"
        f"  channels: {entry['channels']},\n"
        f"  maxConcurrentRequests: {entry['max_concurrent_requests']},\n"
        "});\n"
    )


def momento_python(entry: dict[str, Any], base: str) -> str:
    preset = {"in_region": "Default", "low_latency": "LowLatency"}[base]
    channels = entry["channels"]
    cap = entry["max_concurrent_requests"]
    lines = [
        "from datetime import timedelta\n\n",
        "from momento import CacheClientAsync, Configurations, CredentialProvider\n\n",
    ]
    if channels != 1:
        lines.append(
            f"# {channels} channels: the SDK has no public knob for its channel count; the\n"
            f"# measurement set its private CacheClientAsync._NUM_CLIENTS = {channels}.\n"
            f"CacheClientAsync._NUM_CLIENTS = {channels}\n"
        )
    else:
        lines.append("# 1 channel: the SDK's own default (it has no public knob for it).\n")
    if cap:
        lines.append(
            f"# The SDK has no in-flight cap: keep at most {cap} calls in flight yourself,\n"
            f"# e.g. behind asyncio.Semaphore({cap}), as the measurement did.\n"
        )
    lines.append(
        "\n\nasync def make_client() -> CacheClientAsync:\n"
        "    return await CacheClientAsync.create(\n"
        f"        Configurations.InRegion.{preset}.latest(),\n"
        '        CredentialProvider.for_momento_local("127.0.0.1", 8080),\n'
        "        timedelta(seconds=60),\n"
        "    )\n"
    )
    return "".join(lines)


def momento_js(entry: dict[str, Any], base: str) -> str:
    preset = {"in_region": "Default", "low_latency": "LowLatency"}[base]
    cap = entry["max_concurrent_requests"]
    capped = (
        "configuration = configuration.withTransportStrategy(\n"
        f"  configuration.getTransportStrategy().withMaxConcurrentRequests({cap}),\n"
        ");\n"
        if cap
        else "// No cap on requests in flight (the SDK's default).\n"
    )
    return (
        "import { CacheClient, Configurations, CredentialProvider } from '@gomomento/sdk';\n\n"
        f"let configuration = Configurations.InRegion.{preset}.latest()"
        f".withNumConnections({entry['channels']});\n"
        f"{capped}"
        "const client = await CacheClient.create({\n"
        "  configuration,\n"
        "  credentialProvider: CredentialProvider.forMomentoLocal({\n"
        "    hostname: '127.0.0.1',\n"
        "    port: 8080,\n"
        "  }),\n"
        "  defaultTtlSeconds: 60,\n"
        "});\n"
    )


SNIPPETS: dict[str, tuple[str, Snippet]] = {
    "jiffy-python": ("python", jiffy_python),
    "jiffy-js": ("typescript", jiffy_js),
    "momento-python": ("python", momento_python),
    "momento-js": ("typescript", momento_js),
}


def preset_for(
    sdk: str, entry: dict[str, Any], target_ms: float, runtime_flags: Sequence[str] = ()
) -> dict[str, str] | None:
    """The `preset` object of a recommendation, or None for an SDK without snippets."""
    known = SNIPPETS.get(sdk)
    if known is None:
        return None
    language, snippet = known
    base = base_preset(target_ms)
    comment = "#" if language == "python" else "//"
    header = _header(entry, target_ms, comment)
    if runtime_flags:
        header += f"{comment} Measured with node {' '.join(runtime_flags)}: start node so too.\n"
    return {"language": language, "base": base, "code": header + snippet(entry, base)}
