"""ListKeys (`jiffy keys`) on the Redis store, against a real Redis Cluster.

The embedded store's listing is tested in the server (`store/keys.rs`); this
is the other one: SCAN on each master, and only the items a call could read
answered: not a flushed cache's old generation, not a deleted item.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import ExitStack

import jiffy
import pytest
from deploy_harness import RedisCluster, read_lines, server_binary
from jiffy import cli


@pytest.fixture(scope="module")
def front_end(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One jiffy-server over a fresh three-master cluster: its address."""
    directory = tmp_path_factory.mktemp("list-keys")
    with ExitStack() as stack:
        cluster = stack.enter_context(RedisCluster.started(directory))
        log = directory / "server.log"
        command = [server_binary(), "--store", cluster.store_url, "--listen", "127.0.0.1:0"]
        with log.open("w") as stderr:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr)
        stack.callback(process.wait)
        stack.callback(process.kill)
        (line,) = read_lines(process, 1, log)
        yield line.removeprefix("listening on ")


def keys(capture: pytest.CaptureFixture[bytes], address: str, cache: str, *args: str) -> list[str]:
    capture.readouterr()
    code = cli.main(["--endpoint", address, "keys", "--cache", cache, *args])
    out, err = capture.readouterr()
    assert code == 0, err
    return out.decode().split()


def test_keys_lists_every_live_key_once_across_the_masters(
    front_end: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    with jiffy.CacheClient(jiffy.Endpoint.parse(front_end), default_cache="listed") as client:
        client.create_cache("listed")
        client.set_many({f"old:{i}": "v" for i in range(300)})
        client.flush_cache("listed")
        client.set_many({f"user:{i}": "v" for i in range(2_500)})
        client.set_many({f"order:{i}": "v" for i in range(10)})
        client.set("glob*[x]", "v")
        client.delete("user:7")
    users = keys(capsysbinary, front_end, "listed", "user:")
    assert len(users) == len(set(users)) == 2_499
    assert "user:7" not in users
    assert sorted(keys(capsysbinary, front_end, "listed", "order:")) == sorted(
        f"order:{i}" for i in range(10)
    )
    # The prefix is bytes, not a pattern: glob characters match themselves.
    assert keys(capsysbinary, front_end, "listed", "glob*[") == ["glob*[x]"]
    assert keys(capsysbinary, front_end, "listed", "old:") == []
    assert len(keys(capsysbinary, front_end, "listed", "user:", "--limit", "5")) == 5


def test_keys_of_a_missing_cache_fail_naming_it(
    front_end: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    capsysbinary.readouterr()
    code = cli.main(["--endpoint", front_end, "keys", "--cache", "never-made"])
    assert code == 2
    assert "NOT_FOUND" in capsysbinary.readouterr().err.decode()
