"""Ready-to-paste client configuration for a recommended point, per SDK.

Each snippet uses the SDK's public configuration API (the same calls its
loadgen makes), so what is pasted is what was measured: the transport,
channels and cap of the point, and the endpoint (and protosocket port) and
cache of the sweep, so that it runs as pasted against the server it was
measured on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jiffy_tune import caps, transports
from jiffy_tune.model import PresetCode, SummaryEntry
from jiffy_tune.reach import host_port
from jiffy_tune.runner import DEFAULT_CACHE, DEFAULT_ENDPOINT
from jiffy_tune.wording import noise_label, noisy, workers

# Below this target the base preset is the low-latency one (shorter deadline).
LOW_LATENCY_BELOW_MS = 10.0


@dataclass(frozen=True)
class Where:
    """The server and cache a sweep measured against; the defaults are the loadgens' own."""

    endpoint: str = DEFAULT_ENDPOINT
    cache: str = DEFAULT_CACHE
    # A server jiffy-tune started for the sweep (and stopped after it).
    embedded: bool = False
    # The server's protosocket port (--protosocket-listen), when the sweep had one.
    protosocket_endpoint: str | None = None

    def protosocket(self) -> str:
        """The protosocket endpoint a protosocket point's snippet names."""
        if self.protosocket_endpoint is None:
            raise ValueError("a protosocket point's preset needs the server's protosocket port")
        return self.protosocket_endpoint


Snippet = Callable[[SummaryEntry, str, Where], str]


def base_preset(target_ms: float) -> str:
    return "in_region" if target_ms >= LOW_LATENCY_BELOW_MS else "low_latency"


def _python_str(text: str) -> str:
    # JSON's string syntax is Python's for these strings, in the double quotes of our style.
    return json.dumps(text)


def _js_str(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _header(sdk: str, entry: SummaryEntry, target_ms: float, comment: str, where: Where) -> str:
    lines = [
        f"jiffy-tune: {entry.rps or 0.0:,.0f} rps at p99.9 {entry.client_p999:g} ms "
        f"(target < {target_ms:g} ms)."
    ]
    if noisy(entry.rounds_ok):
        lines.append(f"{noise_label(entry.rounds_ok)}.")
    lines.append(f"{workers(entry.concurrency).capitalize()}.")
    server = where.endpoint
    if where.embedded:
        server += " (the jiffy-server jiffy-tune started)"
    lines.append(f"Measured against {server}, cache {json.dumps(where.cache)}.")
    if transports.chooses(sdk):
        transport = entry.transport
        # With a protosocket port on the server, the SDK's default ("auto")
        # would take it: a gRPC point is then gRPC by the snippet's choice.
        default = (
            " (the SDK's default)"
            if transport == transports.default(sdk) and where.protosocket_endpoint is None
            else ""
        )
        lines.append(f"Transport: {transport}{default}.")
    return "".join(f"{comment} {line}\n" for line in lines)


# Beside the knob: what the address is, and which calls use it.
PROTOSOCKET_COMMENT = (
    "The server's --protosocket-listen port: gets, sets and deletes go over it,",
    "every other call over gRPC to the endpoint.",
)


# Beside `protosocket_endpoint=None` in a gRPC point's snippet, when the
# server it was measured on also had a protosocket port.
GRPC_ONLY_COMMENT = (
    "gRPC, as measured: by default the client would find the server's",
    "protosocket port and carry gets, sets and deletes over it.",
)


def _comment(lines: Sequence[str], marker: str, indent: str) -> str:
    return "".join(f"{indent}{marker} {line}\n" for line in lines)


def _python_cap(cap: caps.Cap) -> str:
    """The cap as Python: a number, or the string "auto" (the adaptive limit)."""
    return _python_str(caps.AUTO) if caps.is_auto(cap) else str(cap)


def _js_cap(cap: caps.Cap) -> str:
    return _js_str(caps.AUTO) if caps.is_auto(cap) else str(cap)


# Above an `auto` cap: what it does, so that the pasted line is not read as a typo.
AUTO_COMMENT = (
    "auto: the SDK's adaptive in-flight limit, as measured: it moves the cap",
    "with the latency it sees instead of holding a fixed number.",
)


def jiffy_python(entry: SummaryEntry, base: str, where: Where) -> str:
    channels = entry.channels
    cap = _python_cap(entry.max_concurrent_requests)
    if entry.transport == transports.PROTOSOCKET:
        config = (
            f"config = {base}.latest().replace(\n"
            f"    channels={channels},\n"
            f"    max_concurrent_requests={cap},\n"
            f"{_comment(PROTOSOCKET_COMMENT, '#', '    ')}"
            f"    protosocket_endpoint={_python_str(where.protosocket())},\n"
            ")\n"
        )
    elif where.protosocket_endpoint is not None:
        config = (
            f"config = {base}.latest().replace(\n"
            f"    channels={channels},\n"
            f"    max_concurrent_requests={cap},\n"
            f"{_comment(GRPC_ONLY_COMMENT, '#', '    ')}"
            "    protosocket_endpoint=None,\n"
            ")\n"
        )
    else:
        knobs = f"channels={channels}, max_concurrent_requests={cap}"
        config = f"config = {base}.latest().replace({knobs})\n"
    if caps.is_auto(entry.max_concurrent_requests):
        config = _comment(AUTO_COMMENT, "#", "") + config
    return (
        "from jiffy import AsyncCacheClient, Endpoint\n"
        f"from jiffy.presets import {base}\n\n"
        f"{config}"
        f"endpoint = Endpoint.parse({_python_str(where.endpoint)})\n\n\n"
        "def make_client() -> AsyncCacheClient:\n"
        "    # Call it in your event loop: a client's channels belong to the loop it is made in.\n"
        f"    return AsyncCacheClient(endpoint, config, default_cache={_python_str(where.cache)})\n"
    )


def jiffy_js(entry: SummaryEntry, base: str, where: Where) -> str:
    name = {"in_region": "inRegion", "low_latency": "lowLatency"}[base]
    auto = _comment(AUTO_COMMENT, "//", "  ") if caps.is_auto(entry.max_concurrent_requests) else ""
    transport = entry.transport
    if transport == transports.PROTOSOCKET:
        over = (
            f"{_comment(PROTOSOCKET_COMMENT, '//', '  ')}"
            f"  protosocketEndpoint: {_js_str(where.protosocket())},\n"
        )
    else:
        over = ""
        if transport != transports.default("jiffy-js"):
            over += f"  transport: {_js_str(transport)},\n"
        if where.protosocket_endpoint is not None:
            over += f"{_comment(GRPC_ONLY_COMMENT, '//', '  ')}  protosocketEndpoint: null,\n"
    return (
        "import { CacheClient, presets } from '@jiffy/sdk';\n\n"
        f"const cache = {_js_str(where.cache)}; // every call names its cache\n"
        "const client = await CacheClient.create({\n"
        f"  ...presets.{name}.latest(),\n"
        f"  endpoint: {_js_str(where.endpoint)},\n"
        f"  channels: {entry.channels},\n"
        f"{auto}"
        f"  maxConcurrentRequests: {_js_cap(entry.max_concurrent_requests)},\n"
        f"{over}"
        "});\n"
    )


def momento_python(entry: SummaryEntry, base: str, where: Where) -> str:
    preset = {"in_region": "Default", "low_latency": "LowLatency"}[base]
    host, port = host_port(where.endpoint)
    channels = entry.channels
    cap = entry.max_concurrent_requests
    lines = [
        "from datetime import timedelta\n\n",
        "from momento import CacheClientAsync, Configurations, CredentialProvider\n\n",
        f"CACHE_NAME = {_python_str(where.cache)}  # every call names its cache\n",
    ]
    if channels != 1:
        lines.append(
            f"# {channels} channels: the SDK has no public knob for its channel count; the\n"
            f"# measurement set its private CacheClientAsync._NUM_CLIENTS = {channels}.\n"
            f"CacheClientAsync._NUM_CLIENTS = {channels}\n"
        )
    else:
        lines.append("# 1 channel: the SDK's own default (it has no public knob for it).\n")
    if caps.is_auto(cap):
        lines.append("# The SDK has no adaptive in-flight cap (auto): run it without one.\n")
    elif cap:
        lines.append(
            f"# The SDK has no in-flight cap: keep at most {cap} calls in flight yourself,\n"
            f"# e.g. behind asyncio.Semaphore({cap}), as the measurement did.\n"
        )
    lines.append(
        "\n\nasync def make_client() -> CacheClientAsync:\n"
        "    return await CacheClientAsync.create(\n"
        f"        Configurations.InRegion.{preset}.latest(),\n"
        f"        CredentialProvider.for_momento_local({_python_str(host)}, {port}),\n"
        "        timedelta(seconds=60),\n"
        "    )\n"
    )
    return "".join(lines)


def momento_js(entry: SummaryEntry, base: str, where: Where) -> str:
    preset = {"in_region": "Default", "low_latency": "LowLatency"}[base]
    host, port = host_port(where.endpoint)
    cap = entry.max_concurrent_requests
    capped = (
        "configuration = configuration.withTransportStrategy(\n"
        f"  configuration.getTransportStrategy().withMaxConcurrentRequests({cap}),\n"
        ");\n"
        if cap and not caps.is_auto(cap)
        else "// No cap on requests in flight (the SDK's default).\n"
    )
    return (
        "import { CacheClient, Configurations, CredentialProvider } from '@gomomento/sdk';\n\n"
        f"const cacheName = {_js_str(where.cache)}; // every call names its cache\n"
        f"let configuration = Configurations.InRegion.{preset}.latest()"
        f".withNumConnections({entry.channels});\n"
        f"{capped}"
        "const client = await CacheClient.create({\n"
        "  configuration,\n"
        "  credentialProvider: CredentialProvider.forMomentoLocal({\n"
        f"    hostname: {_js_str(host)},\n"
        f"    port: {port},\n"
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
    sdk: str,
    entry: SummaryEntry,
    target_ms: float,
    runtime_flags: Sequence[str] = (),
    where: Where | None = None,
) -> PresetCode | None:
    """The `preset` of a recommendation, or None for an SDK without snippets.

    `where`: the sweep's endpoint and cache (default: the loadgens' defaults).
    """
    known = SNIPPETS.get(sdk)
    if known is None:
        return None
    where = where or Where()
    language, snippet = known
    base = base_preset(target_ms)
    comment = "#" if language == "python" else "//"
    header = _header(sdk, entry, target_ms, comment, where)
    if runtime_flags:
        header += f"{comment} Measured with node {' '.join(runtime_flags)}: start node so too.\n"
    return PresetCode(language=language, base=base, code=header + snippet(entry, base, where))
