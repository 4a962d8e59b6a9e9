"""Server instructions per sorted-set call: jiffy-server under callgrind.

As bench/server/instructions.sh counts Get and Set: instruction counts do
not move with the machine's load, so two builds compare on a busy machine.
One server under `valgrind --tool=callgrind`; for each set size, one sorted
set of that many members (`member:N` scored N) is written, then for each
call callgrind's counters are zeroed, CALLS calls are made one after the
other over one channel (the Python SDK, sync), the counters are dumped,
and their total is divided by CALLS. User space only; the server's own
background tasks (expiry, metrics) are counted in, alike for both builds.

Calls, each on a random member of the set:
  put    SortedSetPutElements of one member already held, a new random score
  score  SortedSetGetScore of one member
  rank   SortedSetGetRank of one member
  fetch  SortedSetFetch by rank, the top 10, descending

Usage (with sdk/python installed in the venv):
  .venv/bin/python bench/collections/sorted_set_instructions.py --server BIN
  [--calls 2000] [--sizes 10 1000 100000]
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import subprocess
import tempfile
import time
from collections.abc import Callable

import jiffy

CACHE = "bench"


def start(server: str, work: str) -> tuple[subprocess.Popen[bytes], int]:
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={work}/callgrind.out.%p",
        server,
        "--listen",
        "127.0.0.1:0",
    ]
    with open(os.path.join(work, "server.log"), "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(600):
        with open(os.path.join(work, "server.log"), errors="replace") as f:
            found = re.search(r"^listening on 127\.0\.0\.1:(\d+)", f.read(), re.M)
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise SystemExit("jiffy-server did not start under callgrind")


def count(pid: int, work: str, name: str, calls: int, call: Callable[[], None]) -> int:
    """Instructions per call of `call`."""
    subprocess.run(["callgrind_control", "--zero", str(pid)], check=True, capture_output=True)
    for _ in range(calls):
        call()
    subprocess.run(
        ["callgrind_control", f"--dump={name}", str(pid)], check=True, capture_output=True
    )
    for path in sorted(glob.glob(f"{work}/callgrind.out.*"), key=os.path.getmtime, reverse=True):
        with open(path, errors="replace") as f:
            text = f.read()
        if re.search(rf"^desc: Trigger: .*{re.escape(name)}$", text, re.M):
            total = re.search(r"^totals: (\d+)", text, re.M)
            assert total, path
            return int(total.group(1)) // calls
    raise SystemExit(f"no callgrind dump for {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="target/release/jiffy-server")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 1000, 100000])
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as work:
        process, port = start(args.server, work)
        try:
            endpoint = jiffy.Endpoint.local("127.0.0.1", port)
            config = jiffy.Config(channels=1, deadline=60.0, eager_connect_timeout=None)
            with jiffy.CacheClient(endpoint, config, default_cache=CACHE) as client:
                # Under callgrind the first connection can take longer than
                # grpc's attempt allows: retried until it is up.
                for attempt in range(30):
                    try:
                        client.create_cache(CACHE)
                        break
                    except jiffy.ConnectionError:
                        if attempt == 29:
                            raise
                        time.sleep(1)
                print(f"{args.server}: instructions per call, {args.calls} calls each")
                for size in args.sizes:
                    name = f"z{size}"
                    for first in range(0, size, 1000):
                        batch = [
                            (f"member:{i}", float(i)) for i in range(first, min(size, first + 1000))
                        ]
                        client.sorted_set_put_elements(name, batch)

                    def member(size: int = size) -> str:
                        return f"member:{rng.randrange(size)}"

                    def put(name: str = name, size: int = size) -> None:
                        client.sorted_set_put_element(name, member(), float(rng.randrange(size)))

                    def score(name: str = name) -> None:
                        assert client.sorted_set_get_score(name, member()) is not None

                    def rank(name: str = name) -> None:
                        assert client.sorted_set_get_rank(name, member()) is not None

                    def fetch(name: str = name, size: int = size) -> None:
                        got = client.sorted_set_fetch_by_rank(name, 0, 10, order="descending")
                        assert len(got) == min(size, 10)

                    calls = {"put": put, "score": score, "rank": rank, "fetch": fetch}
                    for call, run in calls.items():
                        per_call = count(process.pid, work, f"{call}-{size}", args.calls, run)
                        print(f"  {size:>7} members  {call:<6} {per_call:>9,}", flush=True)
        finally:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
