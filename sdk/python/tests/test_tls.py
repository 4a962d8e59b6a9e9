"""TLS with a CA file: a self-signed certificate, the server started with it."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import jiffy
from tests.conftest import Server


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_tls_endpoint_with_ca_file(
    start_server: Callable[..., Server], self_signed: tuple[Path, Path]
) -> None:
    cert, key = self_signed
    server = start_server("--tls-cert", str(cert), "--tls-key", str(key))
    endpoint = jiffy.Endpoint.with_tls("localhost", server.port, ca_file=str(cert), api_key="k")
    async with jiffy.AsyncCacheClient(endpoint, default_cache="secure") as client:
        await client.create_cache("secure")
        await client.set("k", "over tls")
        assert await client.get("k") == b"over tls"


async def test_tls_without_the_ca_fails_to_connect(
    start_server: Callable[..., Server], self_signed: tuple[Path, Path]
) -> None:
    cert, key = self_signed
    server = start_server("--tls-cert", str(cert), "--tls-key", str(key))
    config = jiffy.presets.in_region.latest().replace(eager_connect_timeout=1.0)
    endpoint = jiffy.Endpoint.with_tls("localhost", server.port)  # system roots only
    client = jiffy.AsyncCacheClient(endpoint, config)
    with pytest.raises(jiffy.ConnectionError, match="certificate is not trusted"):
        await client.connect()
    await client.aclose()
