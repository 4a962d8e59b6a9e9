"""The transports a sweep can run each SDK over (docs/LOADGEN.md, `--transport`).

Our SDKs carry their calls over gRPC or, given the server's protosocket port
(`--protosocket-listen`), their gets, sets and deletes over protosocket; the
TypeScript SDK also has two gRPC implementations (`http2`, its default, and
`grpc-js`). The names are the loadgens' own `--transport` values, so a point
records exactly what its loadgen was told. The official SDKs, and loadgens
added with `--loadgen` under a new name, speak gRPC only and take no
`--transport`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

GRPC = "grpc"
PROTOSOCKET = "protosocket"
# Each SDK's transports, its default first (what its loadgen uses without --transport).
BY_SDK: dict[str, tuple[str, ...]] = {
    "jiffy-python": (GRPC, PROTOSOCKET),
    "jiffy-js": ("http2", "grpc-js", PROTOSOCKET),
}
ONLY_GRPC = (GRPC,)


def of(sdk: str) -> tuple[str, ...]:
    """The transports `sdk` speaks, its default first."""
    return BY_SDK.get(sdk, ONLY_GRPC)


def default(sdk: str) -> str:
    return of(sdk)[0]


def chooses(sdk: str) -> bool:
    """Whether `sdk`'s loadgen takes `--transport` (it has more than one)."""
    return len(of(sdk)) > 1


def given_or_default(sdk: str, transport: str | None) -> str:
    """The transport of a point or summary entry; results written before
    jiffy-tune swept transports have none, and ran every SDK on its default."""
    return transport or default(sdk)


def named(sdk: str, transport: str) -> str | None:
    """How a point line names a transport: not at all when it is the SDK's default."""
    return None if transport == default(sdk) else transport


def known(sdks: Iterable[str]) -> list[str]:
    """Every name `--transports` takes for these SDKs, in first-seen order."""
    names = [GRPC]
    for sdk in sdks:
        names += [t for t in of(sdk) if t not in names]
    return names


def resolve(
    sdks: Sequence[str], asked: Sequence[str] | None, protosocket: bool
) -> dict[str, list[str]]:
    """Per SDK, the transports to sweep, in the order asked; the first one is its main one.

    `asked` None: each SDK's default, then protosocket when the server has
    a protosocket port (`protosocket`) and the SDK speaks it. `grpc` names
    each SDK's default gRPC transport (TypeScript: http2). An SDK with one
    transport runs it whatever is asked; one with a choice must be given one
    of its own. Raises ValueError for a name no SDK speaks or an SDK left
    with none.
    """
    if asked is None:
        return {
            sdk: [default(sdk)] + ([PROTOSOCKET] if protosocket and PROTOSOCKET in of(sdk) else [])
            for sdk in sdks
        }
    names = known(sdks)
    unknown = [name for name in asked if name not in names]
    if unknown:
        raise ValueError(
            f"unknown transport {', '.join(unknown)} for {', '.join(sdks)}; "
            f"known: {', '.join(names)}"
        )
    chosen: dict[str, list[str]] = {}
    for sdk in sdks:
        mine: list[str] = []
        for name in asked:
            transport = default(sdk) if name == GRPC else name
            if transport in of(sdk) and transport not in mine:
                mine.append(transport)
        if not mine and chooses(sdk):
            raise ValueError(
                f"--transports names none of {sdk}'s transports ({', '.join(of(sdk))}, "
                "or grpc for its default)"
            )
        chosen[sdk] = mine or [default(sdk)]
    return chosen


def uses_protosocket(chosen: Mapping[str, Sequence[str]]) -> bool:
    """Whether any SDK runs over protosocket (the server needs its protosocket port)."""
    return any(PROTOSOCKET in transports for transports in chosen.values())
