"""Every column of the report's tables, with what it means.

A column is its header and the sentence that explains it: report.html shows
the sentence as the header's tooltip and both renderings list a table's
columns with their sentences in a legend under the table, so no figure is
left for the reader to guess. Each meaning is written once, here.
"""

from __future__ import annotations

from dataclasses import dataclass

from jiffy_tune import adaptive
from jiffy_tune.report import formatting as fmt
from jiffy_tune.wording import MEASURED_ROUNDS, higher, lower


@dataclass(frozen=True)
class Column:
    label: str
    # One sentence: what the figure is, where it comes from, which way is better.
    help: str


SDK = Column(
    "SDK",
    "The SDK whose load generator ran: jiffy-python and jiffy-js are ours, momento-python and "
    "momento-js the official Momento SDKs, driven through adapters in bench/.",
)
TARGET = Column(
    "target",
    "The latency goal: a configuration qualifies when its client p99.9 (median over rounds) is "
    "strictly under it, with no errors.",
)
TRANSPORT = Column(
    "transport",
    "How the SDK carried its calls: grpc (gRPC over HTTP/2), http2 (jiffy-js's gRPC over "
    "node:http2), grpc-js (jiffy-js over @grpc/grpc-js) or protosocket (gets, sets and "
    "deletes as length-prefixed protobuf frames on the server's protosocket port).",
)
CHANNELS = Column(
    "channels",
    "The connections (gRPC channels) the SDK opened to the server and spread calls over.",
)
CAP = Column(
    "cap",
    "The SDK's cap on requests in flight: a number, none (no cap) or auto (the SDK's adaptive "
    "limit, which moves the cap as it measures).",
)
CONCURRENCY = Column(
    "concurrency",
    "Closed loop: the load generator's workers, each keeping one request in flight, so the load "
    "offered rises with it.",
)
OFFERED_RATE = Column(
    "offered rate",
    "Open loop: the requests per second the load generator sent on schedule, whether or not "
    "earlier ones had been answered.",
)
THROUGHPUT = Column(
    higher("throughput"),
    "Requests answered per second in the measured window (after warm-up), median over the ok "
    "rounds.",
)
# The recommendation's figures: the median, and under it the range of the rounds.
THROUGHPUT_RANGED = Column(
    higher("throughput"),
    "Requests answered per second in the measured window (after warm-up), median over the ok "
    "rounds; under it, the slowest and the fastest round. A wide range means the machine was "
    "noisy while this configuration ran.",
)
CLIENT_P50 = Column(
    lower("client p50"),
    "The median latency of a call as the load generator timed it, from send to answer, in ms "
    "(median over rounds).",
)
CLIENT_P99 = Column(
    lower("client p99"),
    "The latency 99% of calls stayed under, as the load generator timed them, in ms (median "
    "over rounds).",
)
CLIENT_P999 = Column(
    lower("client p99.9"),
    "The latency 99.9% of calls stayed under, as the load generator timed them, in ms (median "
    "over rounds): the tail the targets are set on.",
)
CLIENT_P999_RANGED = Column(
    lower("client p99.9"),
    "The latency 99.9% of calls stayed under, as the load generator timed them, in ms, median "
    "over the ok rounds; under it, the best and the worst round.",
)
SERVER_P50 = Column(
    lower("server p50"),
    "The median time the server spent on a request, from its own latency histogram (request "
    "to answer, so without the client or the wire), in ms.",
)
SERVER_P999 = Column(
    lower("server p99.9"),
    "The server's own p99.9 from its latency histogram (request to answer), in ms: what the "
    "server adds to the tail, without the client or the wire.",
)
CLIENT_SHARE = Column(
    lower("client share"),
    "The part of client p99.9 not spent in the server: 1 - server p99.9 / client p99.9. High "
    "means the tail comes from the client, its runtime, its network stack and the wire; low "
    "means from the server.",
)
ROUNDS = Column(
    "rounds",
    f"The ok rounds behind the medians. A recommendation takes at least {MEASURED_ROUNDS}; with "
    "fewer the row says there were not enough rounds to recommend.",
)
ROUNDS_OK = Column("rounds ok", "The rounds of this configuration that succeeded, of those run.")
SPREAD = Column(
    "spread (rps / p99.9)",
    "How far apart the ok rounds were: (highest - lowest) / median, for throughput and for "
    "client p99.9. Blank with one round, which has no spread to show.",
)
ERRORS = Column(
    lower("errors"),
    "Requests that failed, summed over the ok rounds; a configuration with any is never "
    "recommended.",
)
CONFIGURATION = Column(
    "configuration",
    "Channels, cap and concurrency of the configuration the rule picked among this "
    "transport's points.",
)
POINT = Column("point", "The point's number in the run, as results.json and the console name it.")
ROUND = Column("round", "Which pass over the grid the point belonged to, from 0.")
ERROR = Column("error", "How the loadgen ended and the exception line it printed.")
ERRORS_BY_STATUS = Column(
    "errors by status", "The point's failed requests, counted by gRPC status name."
)
HIGHEST_RATE = Column(
    higher("highest offered rate met"),
    "The highest offered rate whose client p99.9 stayed under the target, with no errors and "
    "at least 90% of the rate achieved.",
)


def load(open_mode: bool) -> Column:
    """The x of a sweep: concurrency in closed loop, the offered rate in open loop."""
    return OFFERED_RATE if open_mode else CONCURRENCY


# The comparison of ours beside the official SDKs.
PAIR = Column(
    "ours / official",
    "Our SDK and the official SDK of the same language; each ratio is ours divided by theirs.",
)
OURS = Column(
    "ours: configuration",
    "The transport, channels, cap and load of our SDK's figures in this row.",
)
OFFICIAL = Column(
    "official: configuration",
    "The transport, channels, cap and load of the official SDK's figures in this row.",
)
THROUGHPUT_PAIR = Column(
    "throughput, ours / official",
    "Each SDK's median throughput in requests per second, ours first.",
)
THROUGHPUT_RATIO = Column(
    "throughput ratio (above 1: ours is higher, better)",
    "Our throughput divided by the official SDK's: 2.00x means ours answered twice as many "
    "requests per second.",
)
P999_PAIR = Column(
    "client p99.9, ours / official", "Each SDK's median client p99.9 in ms, ours first."
)
P999_RATIO = Column(
    "p99.9 ratio (below 1: ours is lower, better)",
    "Our client p99.9 divided by the official SDK's: 0.50x means our tail was half as long.",
)
PAIR_ROUNDS = Column(
    "rounds",
    f"The fewer of the two sides' ok rounds; under {MEASURED_ROUNDS} the figures are noisy.",
)
# The figures of a comparison row, in this order (comparison._ratio_cells).
RATIO_COLUMNS = (THROUGHPUT_PAIR, THROUGHPUT_RATIO, P999_PAIR, P999_RATIO, PAIR_ROUNDS)


def auto_columns(open_mode: bool) -> list[Column]:
    """The table of auto against the best fixed cap."""
    noun = "offered rate" if open_mode else "concurrency"
    return [
        SDK,
        TRANSPORT,
        CHANNELS,
        TARGET,
        Column(
            higher("auto throughput"),
            "The most throughput a point with cap auto reached with client p99.9 under the target.",
        ),
        Column(lower("auto client p99.9"), "That auto point's client p99.9, in ms."),
        Column(f"auto {noun}", f"That auto point's {noun}."),
        Column(
            "auto's last limit",
            "The in-flight limit auto had chosen when its run ended (median over rounds).",
        ),
        Column(
            "best fixed cap",
            "The fixed cap (none counts as one) whose point reached the most throughput under "
            "the target.",
        ),
        Column(higher("its throughput"), "That fixed-cap point's throughput."),
        Column(f"its {noun}", f"That fixed-cap point's {noun}."),
        Column(
            higher("auto / best fixed cap"),
            "Auto's throughput as a share of the best fixed cap's.",
        ),
        Column(
            f"goal: {fmt.percent(adaptive.GOAL_SHARE)} or more",
            f"Whether auto reached at least {fmt.percent(adaptive.GOAL_SHARE)} of the best "
            "fixed cap's throughput.",
        ),
    ]


def open_loop_columns(with_cap: bool) -> list[Column]:
    columns = [SDK, TRANSPORT, CHANNELS, TARGET, HIGHEST_RATE]
    columns += [
        Column(higher("throughput"), "The throughput achieved at that offered rate."),
        Column(lower("client p99.9"), "The client p99.9 at that offered rate, in ms."),
    ]
    if with_cap:
        columns.insert(3, CAP)
    return columns
