"""What each `--workload` sends (docs/LOADGEN.md, "Workloads").

The harness still draws, for every call, a key and whether it reads
(`--get-ratio`); a workload says what reading and writing that key mean.
Drivers provide one method per operation (below); a workload whose
operations a driver lacks is refused before the run starts.

- scalar: Get / Set of the key (`get`, `set`).
- dictionary: the key is a dictionary of `DICTIONARY_FIELDS` fields; a read
  is DictionaryGet of one field, a write DictionarySet of one field, the
  field picked uniformly at random (`dictionary_get`, `dictionary_set`).
- list: a read is ListFetch of the whole list, a write ListPushBack of the
  value that keeps the list to its last `LIST_KEEP` values (`list_fetch`,
  `list_push_back`). The whole list, not a slice: the official Python SDK
  fetches no slices.
- sorted-set: the key is a sorted set of up to `SORTED_SET_MEMBERS`
  members; a read is SortedSetFetch of the `SORTED_SET_TOP` highest by
  rank, a write SortedSetPut of one member picked at random with a random
  score in [0, 1000) (`sorted_set_top`, `sorted_set_put`). `--value-size`
  does not apply: members are their names.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any, cast

WORKLOADS = ("scalar", "dictionary", "list", "sorted-set")
DICTIONARY_FIELDS = 10
LIST_KEEP = 20
SORTED_SET_MEMBERS = 100
SORTED_SET_TOP = 10

OPERATIONS = {
    "scalar": ("get", "set"),
    "dictionary": ("dictionary_get", "dictionary_set"),
    "list": ("list_fetch", "list_push_back"),
    "sorted-set": ("sorted_set_top", "sorted_set_put"),
}

Read = Callable[[bytes], Awaitable[object]]
Write = Callable[[bytes, bytes], Awaitable[object]]


def key_name(workload: str, index: int) -> str:
    """Key `index` of `workload`: each workload has keys of its own, so that
    runs of several workloads into one cache never meet an item of another
    type."""
    if workload == "scalar":
        return f"loadgen-{index}"
    return f"loadgen-{workload}-{index}"


def missing_operations(driver: Any, workload: str) -> list[str]:
    """The driver methods `workload` needs that `driver` lacks."""
    return [name for name in OPERATIONS[workload] if not callable(getattr(driver, name, None))]


def operations(driver: Any, workload: str, seed: int) -> tuple[Read, Write]:
    """A worker's read(key) and write(key, value) for `workload`."""
    if workload == "scalar":
        # The driver's own methods: no layer in between on the hot path.
        return driver.get, driver.set
    rand = random.Random(seed).random
    if workload == "dictionary":
        fields = [f"field-{i}".encode() for i in range(DICTIONARY_FIELDS)]
        get_field, set_field = driver.dictionary_get, driver.dictionary_set

        def read(key: bytes) -> Awaitable[object]:
            return cast(Awaitable[object], get_field(key, fields[int(rand() * DICTIONARY_FIELDS)]))

        def write(key: bytes, value: bytes) -> Awaitable[object]:
            field = fields[int(rand() * DICTIONARY_FIELDS)]
            return cast(Awaitable[object], set_field(key, field, value))

        return read, write
    if workload == "list":
        push_back = driver.list_push_back
        return driver.list_fetch, lambda key, value: push_back(key, value, LIST_KEEP)
    members = [f"member-{i}".encode() for i in range(SORTED_SET_MEMBERS)]
    top, put = driver.sorted_set_top, driver.sorted_set_put

    def put_one(key: bytes, _value: bytes) -> Awaitable[object]:
        member = members[int(rand() * SORTED_SET_MEMBERS)]
        return cast(Awaitable[object], put(key, member, rand() * 1000.0))

    return (lambda key: top(key, SORTED_SET_TOP)), put_one
