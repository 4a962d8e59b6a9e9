"""deploy/compose/: one server, and three front-ends over a Redis Cluster.

Neither image can be built nor pulled on this project's machines (no
container registry), so the files are checked as far as the machine allows:
`docker compose config` when the compose plugin is there; every JIFFY_*
variable a setting of the server (`jiffy-server --help`), every build the
Containerfile, every dependency a service of the file, the store URL naming
the cluster's nodes; and the one-server file's environment, ports made free,
starts a real server that answers /healthz.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_harness import check_serves, server_binary

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "deploy" / "compose"
FILES = sorted(COMPOSE.glob("*.yaml"))
CONTAINERFILE = "deploy/container/Containerfile"


def load(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


def jiffy_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: service
        for name, service in compose["services"].items()
        if service.get("image") == "jiffy-server"
    }


def server_variables() -> set[str]:
    """Every JIFFY_* variable the server reads, as its --help lists them."""
    done = subprocess.run(
        [server_binary(), "--help"], capture_output=True, text=True, timeout=30, check=True
    )
    found = set(re.findall(r"\[env: (JIFFY_\w+)=", done.stdout))
    assert "JIFFY_LISTEN" in found
    return found


def test_there_is_a_file_for_one_server_and_one_for_the_cluster() -> None:
    assert [path.name for path in FILES] == ["one-server.yaml", "redis-cluster.yaml"]


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_compose_config_accepts_the_file(path: Path) -> None:
    docker = shutil.which("docker")
    plugin = docker and subprocess.run(
        [docker, "compose", "version"], capture_output=True, timeout=30, check=False
    )
    if not plugin or plugin.returncode != 0:
        # The structure docker compose would check, in brief: services with
        # an image, dependencies among them.
        compose = load(path)
        for name, service in compose["services"].items():
            assert "image" in service, name
            assert set(service.get("depends_on", {})) <= set(compose["services"]), name
        return
    secret = path.parent / "secret"
    made = not secret.exists()
    if made:
        secret.write_text("checked by docker compose config")
    try:
        done = subprocess.run(
            [docker, "compose", "-f", str(path), "config", "--quiet"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        if made:
            secret.unlink()
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_front_end_is_the_containerfiles_image_with_known_settings(path: Path) -> None:
    services = jiffy_services(load(path))
    assert services
    known = server_variables()
    for name, service in services.items():
        build = service["build"]
        assert (path.parent / build["context"]).resolve() == REPO, name
        assert build["dockerfile"] == CONTAINERFILE, name
        assert (REPO / CONTAINERFILE).is_file()
        unknown = set(service["environment"]) - known
        assert unknown == set(), f"{name}: the server reads no {sorted(unknown)}"
        # The Containerfile's ports, published.
        targets = {port.rsplit(":", 1)[1] for port in service["ports"]}
        assert targets == {"8080", "9090"}, name
        env = service["environment"]
        assert env["JIFFY_LISTEN"].endswith(":8080")
        assert env["JIFFY_METRICS_LISTEN"].endswith(":9090")


def test_front_ends_share_a_secret_and_name_every_cluster_node() -> None:
    compose = load(COMPOSE / "redis-cluster.yaml")
    services = jiffy_services(compose)
    assert len(services) == 3
    nodes = {
        name for name, service in compose["services"].items()
        if service.get("command", [None])[0] == "redis-server"
    }  # fmt: skip
    assert len(nodes) == 3
    create = compose["services"]["redis-cluster-create"]["command"]
    assert {arg.split(":")[0] for arg in create if ":" in arg} == nodes
    for name, service in services.items():
        env = service["environment"]
        scheme, _, addresses = env["JIFFY_STORE"].partition("://")
        assert scheme == "redis-cluster", name
        assert {address.split(":")[0] for address in addresses.split(",")} == nodes
        assert env["JIFFY_AUTH_SECRET_FILE"] == "/run/secrets/jiffy-secret"
        assert service["secrets"] == ["jiffy-secret"]
        assert "redis-cluster-create" in service["depends_on"]
    assert compose["secrets"]["jiffy-secret"]["file"] == "./secret"
    ignored = (COMPOSE / ".gitignore").read_text().split()
    assert "/secret" in ignored


def test_one_server_environment_starts_a_server(tmp_path: Path) -> None:
    (service,) = jiffy_services(load(COMPOSE / "one-server.yaml")).values()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIFFY_")}
    env.update({name: str(value) for name, value in service["environment"].items()})
    # The container's every interface, as loopback here, on free ports.
    env["JIFFY_LISTEN"] = "127.0.0.1:0"
    env["JIFFY_METRICS_LISTEN"] = "127.0.0.1:0"
    check_serves([server_binary()], env, tmp_path / "server.log")
