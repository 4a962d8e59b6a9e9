"""The real Redis Cluster of tests/redis-cluster.sh, for the Python tests.

Both the conformance suite (tests/conformance/python) and the deployment
test (tests/deploy) run their front-ends over it; their pytest.ini puts
this folder on the import path.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "redis-cluster.sh"
# Creating a cluster waits for the nodes to agree on slots: seconds, not minutes.
START_TIMEOUT_SECONDS = 120
STOP_TIMEOUT_SECONDS = 60


@contextmanager
def redis_cluster(directory: Path) -> Iterator[str]:
    """Starts a cluster in `directory`; yields its `--store` URL
    (`redis-cluster://host:port,...`); stops it on exit whatever happened."""
    try:
        started = subprocess.run(
            ["bash", str(SCRIPT), "start", str(directory)],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_SECONDS,
        )
        if started.returncode != 0 or not started.stdout.strip():
            raise RuntimeError(
                f"{SCRIPT.name} start exited {started.returncode}; "
                f"stdout:\n{started.stdout}\nstderr:\n{started.stderr}"
            )
        # The script's contract: the node list is its last stdout line.
        nodes = started.stdout.strip().splitlines()[-1].strip()
        yield f"redis-cluster://{nodes}"
    finally:
        subprocess.run(
            ["bash", str(SCRIPT), "stop", str(directory)],
            capture_output=True,
            timeout=STOP_TIMEOUT_SECONDS,
            check=False,
        )
