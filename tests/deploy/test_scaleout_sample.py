"""The deployment sample of deploy/scaleout, run for real.

A Redis Cluster (tests/redis-cluster.sh), three jiffy-servers started with
the sample's jiffy-server.toml, and HAProxy with the sample's haproxy.cfg in
front of them; only addresses, ports and the secret's path are changed. A
client of our Python SDK with several channels goes through the balancer:
every front-end must serve some of its calls, a write through one must be
read through the others, and when one front-end dies the rest carry on.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import jiffy
import pytest
from deploy_harness import (
    FrontEnd,
    HaProxy,
    RedisCluster,
    create_token,
    requests_served,
    write_secret,
)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "deploy" / "scaleout"
FRONT_ENDS = 3
# Connections of the client: two per front-end under leastconn.
CHANNELS = 6
CACHE = "deploy-sample"


def sample_toml(store_url: str, secret_file: Path) -> str:
    """The sample's TOML with this cluster and this secret; nothing else changed."""
    text = (SAMPLE / "jiffy-server.toml").read_text()
    text, stores = re.subn(r'(?m)^store = ".*"$', f'store = "{store_url}"', text)
    text, secrets = re.subn(
        r'(?m)^auth-secret-file = ".*"$', f'auth-secret-file = "{secret_file}"', text
    )
    assert (stores, secrets) == (1, 1), "the sample TOML lost its store or secret line"
    return text


def sample_haproxy_cfg(bind_port: int, servers: list[tuple[str, str]], stats_socket: Path) -> str:
    """The sample's haproxy.cfg on these ports, with a stats socket to read check states."""
    text = (SAMPLE / "haproxy.cfg").read_text()
    text, binds = re.subn(r"(?m)^(\s+bind )\S+$", rf"\g<1>127.0.0.1:{bind_port}", text)
    assert binds == 1, "the sample haproxy.cfg should bind once"
    # Each server line: its gRPC address, and its metrics port for the check.
    lines = iter(servers)

    def server_line(match: re.Match[str]) -> str:
        address, metrics = next(lines)
        return f"{match.group(1)}{address}{match.group(2)}{metrics.rpartition(':')[2]}"

    text, count = re.subn(r"(?m)^(\s+server \S+ )\S+( check port )\d+", server_line, text)
    assert count == len(servers), f"the sample haproxy.cfg should list {len(servers)} servers"
    text, globals_ = re.subn(
        r"(?m)^global$", f"global\n    stats socket {stats_socket} level admin", text
    )
    assert globals_ == 1
    return text


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    with RedisCluster.started(tmp_path / "cluster") as started:
        yield started


def test_the_sample_haproxy_cfg_is_valid() -> None:
    checked = subprocess.run(
        [HaProxy.binary(), "-c", "-f", str(SAMPLE / "haproxy.cfg")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_three_front_ends_behind_haproxy_share_the_load_and_the_data(
    cluster: RedisCluster, tmp_path: Path
) -> None:
    secret = write_secret(tmp_path / "secret")
    config = tmp_path / "jiffy-server.toml"
    config.write_text(sample_toml(cluster.store_url, secret))
    token = create_token(secret)

    with (
        FrontEnd.started(config, tmp_path / "fe1.log") as fe1,
        FrontEnd.started(config, tmp_path / "fe2.log") as fe2,
        FrontEnd.started(config, tmp_path / "fe3.log") as fe3,
    ):
        front_ends = [fe1, fe2, fe3]
        with HaProxy.started(
            lambda port, socket: sample_haproxy_cfg(
                port, [(fe.address, fe.metrics) for fe in front_ends], socket
            ),
            tmp_path,
        ) as lb:
            lb.wait_all_up(FRONT_ENDS)
            endpoint = jiffy.Endpoint.local("127.0.0.1", lb.port, api_key=token)
            config_ = jiffy.presets.in_region.latest().replace(channels=CHANNELS)
            with jiffy.CacheClient(endpoint, config_, default_cache=CACHE) as client:
                client.create_cache(CACHE)
                before = [requests_served(fe) for fe in front_ends]
                for i in range(60):
                    client.set(f"key-{i}", f"value-{i}", ttl=60)
                # Each get goes round robin to another channel, so most are
                # answered by a front-end other than the one that stored it.
                for i in range(60):
                    assert client.get_str(f"key-{i}") == f"value-{i}"
                served = [requests_served(fe) - b for fe, b in zip(front_ends, before, strict=True)]
                assert all(count > 0 for count in served), f"calls per front-end: {served}"
                assert sum(served) == 120

                # One front-end dies: its connections drop, the balancer takes
                # it out, and the client's retries and reconnects land on the
                # two others.
                fe3.kill()
                lb.wait_down("front-end-3")
                survivors = [fe1, fe2]
                before = [requests_served(fe) for fe in survivors]
                for i in range(60):
                    assert client.get_str(f"key-{i}") == f"value-{i}"
                served = [requests_served(fe) - b for fe, b in zip(survivors, before, strict=True)]
                assert sum(served) >= 60, f"calls per surviving front-end: {served}"
