"""jiffy: a tuned client for jiffy-server and the Momento cache protocol.

    import jiffy

    async with jiffy.AsyncCacheClient(jiffy.Endpoint.local("127.0.0.1", 8080),
                                      jiffy.presets.in_region.latest(),
                                      default_cache="demo") as client:
        await client.set("greeting", "hello")
        print(await client.get_str("greeting"))

`CacheClient` is the same API, blocking. Failures raise a `jiffy.CacheError`
subclass; a miss is None.
"""

from __future__ import annotations

from jiffy import presets
from jiffy._async_client import AsyncCacheClient
from jiffy._async_leaderboard import AsyncLeaderboard
from jiffy._async_topics import AsyncSubscription
from jiffy._calls import SetIf
from jiffy._config import Config, RetryPolicy
from jiffy._endpoint import Endpoint
from jiffy._exceptions import (
    AlreadyExistsError,
    AuthenticationError,
    CacheError,
    CacheNotFoundError,
    ConnectionError,
    InvalidArgumentError,
    LimitExceededError,
    NotFoundError,
    PermissionError,
    ServerError,
    TimeoutError,
    WrongTypeError,
)
from jiffy._hash import SetIfHash
from jiffy._leaderboard import LeaderboardElement
from jiffy._signing_keys import SigningKey, create_presigned_url
from jiffy._sync_client import CacheClient
from jiffy._sync_leaderboard import Leaderboard
from jiffy._sync_topics import Subscription
from jiffy._tokens import ApiKey, CachePermission, DisposableToken, Permissions, TopicPermission
from jiffy._topics import TopicDiscontinuity, TopicMessage, TopicPosition
from jiffy._version import __version__
from jiffy._webhooks import Webhook, verify_webhook_signature

__all__ = [
    "AlreadyExistsError",
    "ApiKey",
    "AsyncCacheClient",
    "AsyncLeaderboard",
    "AsyncSubscription",
    "AuthenticationError",
    "CacheClient",
    "CacheError",
    "CacheNotFoundError",
    "CachePermission",
    "Config",
    "ConnectionError",
    "DisposableToken",
    "Endpoint",
    "InvalidArgumentError",
    "Leaderboard",
    "LeaderboardElement",
    "LimitExceededError",
    "NotFoundError",
    "PermissionError",
    "Permissions",
    "RetryPolicy",
    "ServerError",
    "SetIf",
    "SetIfHash",
    "SigningKey",
    "Subscription",
    "TimeoutError",
    "TopicDiscontinuity",
    "TopicMessage",
    "TopicPermission",
    "TopicPosition",
    "Webhook",
    "WrongTypeError",
    "__version__",
    "create_presigned_url",
    "presets",
    "verify_webhook_signature",
]
