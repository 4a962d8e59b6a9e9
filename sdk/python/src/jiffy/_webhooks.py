"""Webhooks without I/O: the Webhook record, request builders, and the check
a receiver makes of what it is sent.

A webhook POSTs each message of a topic to a URL (docs/WEBHOOKS.md). Each
POST carries a `momento-signature` header: the lowercase hex HMAC SHA3-256
of the raw body, keyed with the webhook's secret, as Momento signs them;
`verify_webhook_signature` checks it in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from jiffy._exceptions import AuthenticationError, InvalidArgumentError
from jiffy._proto import webhook_pb2 as webhook_pb


@dataclass(frozen=True, slots=True)
class Webhook:
    """Webhook `name` of `cache`: each message published to `topic` is
    POSTed to `url`."""

    cache: str
    name: str
    topic: str
    url: str


def _id(cache: str, name: str) -> webhook_pb._WebhookId:
    return webhook_pb._WebhookId(cache_name=cache, webhook_name=name)


def put_request(cache: str, name: str, topic: str, url: str) -> webhook_pb._PutWebhookRequest:
    return webhook_pb._PutWebhookRequest(
        webhook=webhook_pb._Webhook(
            webhook_id=_id(cache, name),
            topic_name=topic,
            destination=webhook_pb._WebhookDestination(post_url=url),
        )
    )


def delete_request(cache: str, name: str) -> webhook_pb._DeleteWebhookRequest:
    return webhook_pb._DeleteWebhookRequest(webhook_id=_id(cache, name))


def list_request(cache: str) -> webhook_pb._ListWebhookRequest:
    return webhook_pb._ListWebhookRequest(cache_name=cache)


def secret_request(cache: str, name: str) -> webhook_pb._GetWebhookSecretRequest:
    return webhook_pb._GetWebhookSecretRequest(cache_name=cache, webhook_name=name)


def rotate_request(cache: str, name: str) -> webhook_pb._RotateWebhookSecretRequest:
    return webhook_pb._RotateWebhookSecretRequest(webhook_id=_id(cache, name))


def read_list(response: webhook_pb._ListWebhooksResponse) -> list[Webhook]:
    return [
        Webhook(
            cache=hook.webhook_id.cache_name,
            name=hook.webhook_id.webhook_name,
            topic=hook.topic_name,
            url=hook.destination.post_url,
        )
        for hook in response.webhook
    ]


def verify_webhook_signature(body: bytes | str, signature: str | None, signing_secret: str) -> None:
    """Check that `body` (the raw request body, as received) was signed with
    `signing_secret`: `signature` is the request's `momento-signature`
    header. Raises AuthenticationError when it was not (a forged or altered
    request), InvalidArgumentError when the signature or the secret is
    missing."""
    if not signing_secret:
        raise InvalidArgumentError("signing_secret is empty: pass the webhook's secret")
    if not signature:
        raise InvalidArgumentError("no signature: pass the momento-signature header")
    raw = body.encode() if isinstance(body, str) else body
    expected = hmac.new(signing_secret.encode(), raw, hashlib.sha3_256).hexdigest()
    if not hmac.compare_digest(expected, signature.strip().lower()):
        raise AuthenticationError(
            "the webhook request's signature does not match its body and signing_secret"
        )
