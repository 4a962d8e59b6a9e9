"""Webhooks without a server: what put sends, and the signature check a
receiver makes, against signatures computed as Momento's documentation
computes them (HMAC SHA3-256 of the raw body, in hex)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

import jiffy
from jiffy import AuthenticationError, InvalidArgumentError, verify_webhook_signature
from tests.recording import recording_async_client

BODY = b'{"cache":"c","topic":"t","text":"hi"}'


def momento_signature(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha3_256).hexdigest()


def test_the_signature_of_the_body_under_the_secret_is_accepted() -> None:
    signature = momento_signature("s3cret", BODY)
    verify_webhook_signature(BODY, signature, "s3cret")
    verify_webhook_signature(BODY.decode(), signature.upper(), "s3cret")


@pytest.mark.parametrize(
    ("body", "signature", "secret"),
    [
        (BODY + b" ", momento_signature("s3cret", BODY), "s3cret"),
        (BODY, momento_signature("s3cret", BODY), "other"),
        (BODY, "not hex", "s3cret"),
    ],
)
def test_another_body_secret_or_signature_is_an_authentication_error(
    body: bytes, signature: str, secret: str
) -> None:
    with pytest.raises(AuthenticationError):
        verify_webhook_signature(body, signature, secret)


def test_a_missing_signature_or_secret_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError):
        verify_webhook_signature(BODY, None, "s3cret")
    with pytest.raises(InvalidArgumentError):
        verify_webhook_signature(BODY, momento_signature("s", BODY), "")


async def test_put_sends_the_webhook() -> None:
    client, recorder = await recording_async_client()
    client.endpoint = jiffy.Endpoint.local("127.0.0.1", 9, api_key="my-token")
    await client.put_webhook("c", "h", "t", "http://127.0.0.1:9/x")
    [(_, request)] = recorder.sent
    assert request.webhook.webhook_id.cache_name == "c"
    assert request.webhook.webhook_id.webhook_name == "h"
    assert request.webhook.topic_name == "t"
    assert request.webhook.destination.post_url == "http://127.0.0.1:9/x"
