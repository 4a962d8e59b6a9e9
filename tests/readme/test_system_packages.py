"""What the README says of the system packages: `make demo` needs none
beyond the toolchains, `make test` needs redis-server, haproxy, chromium,
iproute2, systemd, a JDK and Maven too; without root or password-less sudo
the script stops at once naming the one command that installs what is missing.

mk/system-packages.sh runs here on a PATH holding only bash and a
non-root `id` and a `sudo` that refuses, so that every probe fails and the
message names every package the target needs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOLCHAINS = {"make", "gcc", "nodejs", "npm", "python3", "python3-venv", "util-linux"}
TEST_ONLY = {
    "redis-server",
    "haproxy",
    "chromium",
    "iproute2",
    "systemd",
    "default-jdk-headless",
    "maven",
}


def missing(target: str, tmp_path: Path) -> set[str]:
    """The packages the script says `make <target>` lacks on an empty machine."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    bash = shutil.which("bash")
    assert bash
    if not (bin_dir / "bash").exists():
        (bin_dir / "bash").symlink_to(bash)
        (bin_dir / "id").write_text("#!/bin/bash\necho 1000\n")
        (bin_dir / "sudo").write_text("#!/bin/bash\nexit 1\n")
        (bin_dir / "id").chmod(0o755)
        (bin_dir / "sudo").chmod(0o755)
    done = subprocess.run(
        [bash, str(REPO / "mk" / "system-packages.sh"), target],
        env={"PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    said = re.fullmatch(
        rf"make {target}: missing system packages: (.+)\n"
        r"install them with: sudo apt-get install -y (.+)\n",
        done.stderr,
    )
    assert said, done.stderr
    assert said.group(1) == said.group(2)
    return set(said.group(1).split())


def test_make_demo_asks_only_for_the_toolchains(tmp_path: Path) -> None:
    assert missing("demo", tmp_path) == TOOLCHAINS


def test_make_test_asks_for_its_services_too(tmp_path: Path) -> None:
    assert missing("test", tmp_path) >= TOOLCHAINS | TEST_ONLY


def test_an_unknown_target_is_refused() -> None:
    done = subprocess.run(
        ["bash", str(REPO / "mk" / "system-packages.sh"), "deploy"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "usage:" in done.stderr
