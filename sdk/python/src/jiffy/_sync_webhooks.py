# Generated from _async_webhooks.py by scripts/generate_sync.py: do not edit.
"""The webhook calls of CacheClient: put, delete, list, and the secret.

A webhook POSTs each message of a topic of a cache to a URL, signed with
its secret (docs/WEBHOOKS.md; receivers check with
`verify_webhook_signature`). Managing webhooks needs an admin token of the
cache. Put, delete, list and get_webhook_secret are retried as idempotent
calls; a rotation is never resent, as each makes another secret.
"""

from __future__ import annotations

from jiffy import _calls as c
from jiffy import _webhooks as w
from jiffy._sync_base import SyncClientBase
from jiffy._webhooks import Webhook


class SyncWebhookCalls(SyncClientBase):
    def put_webhook(self, cache: str, name: str, topic: str, url: str) -> str:
        """Create or replace webhook `name` of `cache`, POSTing each message
        of `topic` to `url`; returns its signing secret (kept when the
        webhook is replaced)."""
        request = w.put_request(cache, name, topic, url)
        response = self._route.control(c.PUT_WEBHOOK, request)
        return str(response.secret_string)

    def delete_webhook(self, cache: str, name: str) -> None:
        """Delete webhook `name` of `cache`; one that is not there is no error."""
        self._route.control(c.DELETE_WEBHOOK, w.delete_request(cache, name))

    def list_webhooks(self, cache: str) -> list[Webhook]:
        """The webhooks of `cache`, by name."""
        response = self._route.control(c.LIST_WEBHOOKS, w.list_request(cache))
        return w.read_list(response)

    def get_webhook_secret(self, cache: str, name: str) -> str:
        """The signing secret of webhook `name`; NotFoundError when it does not exist."""
        response = self._route.control(c.GET_WEBHOOK_SECRET, w.secret_request(cache, name))
        return str(response.secret_string)

    def rotate_webhook_secret(self, cache: str, name: str) -> str:
        """A new signing secret for webhook `name`, used from the next POST on."""
        response = self._route.control(c.ROTATE_WEBHOOK_SECRET, w.rotate_request(cache, name))
        return str(response.secret_string)
