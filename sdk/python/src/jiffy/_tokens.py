"""Token vending without I/O: permissions, request builders, answer readers.

A server started with --auth-secret-file mints tokens of Momento's
permission model (docs/AUTH.md): a super user, Momento's
`AllDataReadWrite` preset, or a list of cache and topic permissions. The
names follow the official SDKs': roles `read_write` / `read_only` /
`write_only` on cache items, `publish_subscribe` / `subscribe_only` /
`publish_only` on topics; a permission left without a cache reaches all
caches, without a key (or topic) all items (or topics).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from jiffy._calls import Key, Ttl, as_bytes
from jiffy._config import seconds
from jiffy._exceptions import InvalidArgumentError
from jiffy._proto import auth_pb2 as auth_pb
from jiffy._proto import permissionmessages_pb2 as permission_pb
from jiffy._proto import token_pb2 as token_pb

CacheRole = Literal["read_write", "read_only", "write_only"]
TopicRole = Literal["publish_subscribe", "subscribe_only", "publish_only"]
# The proto's enum names of each role.
_CACHE_ROLES = {
    "read_write": "CacheReadWrite",
    "read_only": "CacheReadOnly",
    "write_only": "CacheWriteOnly",
}
_TOPIC_ROLES = {
    "publish_subscribe": "TopicReadWrite",
    "subscribe_only": "TopicReadOnly",
    "publish_only": "TopicWriteOnly",
}
# A disposable token lives at most an hour, as on Momento.
MAX_DISPOSABLE_SECONDS = 3600
# The protocol carries an expiry as uint32 seconds.
_MAX_SECONDS = 2**32 - 1


@dataclass(frozen=True, slots=True)
class CachePermission:
    """`role` on the items of `cache` (None: every cache): all of them, or
    only `key`, or only the keys starting with `key_prefix`."""

    role: CacheRole
    cache: str | None = None
    key: Key | None = None
    key_prefix: Key | None = None


@dataclass(frozen=True, slots=True)
class TopicPermission:
    """`role` on the topics of `cache` (None: every cache): all of them, or
    only `topic`, or only the topics whose name starts with `topic_prefix`."""

    role: TopicRole
    cache: str | None = None
    topic: str | None = None
    topic_prefix: str | None = None


# What a token may do: "super_user" (everything, the control plane
# included), "all_data_read_write" (Momento's AllDataReadWrite: read-write
# on every cache's items, publish-subscribe on every topic), or a list of
# cache and topic permissions.
Permissions = (
    Literal["super_user", "all_data_read_write"] | Iterable[CachePermission | TopicPermission]
)


@dataclass(frozen=True, slots=True)
class DisposableToken:
    """A minted token: give it as an api_key (`Endpoint.local(..., api_key=)`).
    `endpoint` is the host the server names; `expires_at` is when it stops working."""

    token: str
    endpoint: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A minted api key and the refresh token that renews it
    (`refresh_api_key` on a client holding this key); `valid_until` is None
    for a key that never expires."""

    api_key: str
    refresh_token: str
    endpoint: str
    valid_until: datetime | None


def _all() -> Any:
    return permission_pb.PermissionsType.All()


def _cache_selector(cache: str | None) -> dict[str, Any]:
    if cache is None:
        return {"all_caches": _all()}
    if not isinstance(cache, str) or not cache:
        raise InvalidArgumentError(
            f"a permission's cache is a non-empty str or None, not {cache!r}"
        )
    return {"cache_selector": permission_pb.PermissionsType.CacheSelector(cache_name=cache)}


def _role(kind: str, roles: dict[str, str], role: object) -> str:
    wire = roles.get(role) if isinstance(role, str) else None
    if wire is None:
        raise InvalidArgumentError(
            f"a {kind} permission's role is one of {sorted(roles)}, not {role!r}"
        )
    return wire


def _within(what: str, names: tuple[str, str, str, str], exact: Any, prefix: Any) -> dict[str, Any]:
    """One oneof of a permission: all (`names[0]`), or a selector (`names[1]`)
    of the one `exact` (its field `names[2]`) or of those starting with
    `prefix` (`names[3]`)."""
    everything, selector, exact_field, prefix_field = names
    if exact is not None and prefix is not None:
        raise InvalidArgumentError(f"a permission names a {what} or a {what} prefix, not both")
    if exact is None and prefix is None:
        return {everything: _all()}
    field, value = (exact_field, exact) if exact is not None else (prefix_field, prefix)
    return {selector: {field: value}}


def _cache_permission(permission: CachePermission) -> Any:
    key = None if permission.key is None else as_bytes(permission.key)
    prefix = None if permission.key_prefix is None else as_bytes(permission.key_prefix)
    names = ("all_items", "item_selector", "key", "key_prefix")
    cache = permission_pb.PermissionsType.CachePermissions(
        role=_role("cache", _CACHE_ROLES, permission.role),
        **_cache_selector(permission.cache),
        **_within("key", names, key, prefix),
    )
    return permission_pb.PermissionsType(cache_permissions=cache)


def _topic_permission(permission: TopicPermission) -> Any:
    names = ("all_topics", "topic_selector", "topic_name", "topic_name_prefix")
    topic = permission_pb.PermissionsType.TopicPermissions(
        role=_role("topic", _TOPIC_ROLES, permission.role),
        **_cache_selector(permission.cache),
        **_within("topic", names, permission.topic, permission.topic_prefix),
    )
    return permission_pb.PermissionsType(topic_permissions=topic)


def _explicit(permissions: Iterable[Any]) -> Any:
    listed = []
    for permission in permissions:
        if isinstance(permission, CachePermission):
            listed.append(_cache_permission(permission))
        elif isinstance(permission, TopicPermission):
            listed.append(_topic_permission(permission))
        else:
            raise InvalidArgumentError(
                f"a permission is a CachePermission or a TopicPermission, not {permission!r}"
            )
    if not listed:
        raise InvalidArgumentError("permissions: the list is empty")
    return permission_pb.Permissions(explicit=permission_pb.ExplicitPermissions(permissions=listed))


def permissions_message(permissions: Permissions) -> Any:
    """The wire form of `permissions`; InvalidArgumentError for one the server would refuse."""
    if permissions == "super_user":
        return permission_pb.Permissions(super_user="SuperUser")
    if permissions == "all_data_read_write":
        return _explicit([CachePermission("read_write"), TopicPermission("publish_subscribe")])
    if isinstance(permissions, str | bytes) or not isinstance(permissions, Iterable):
        raise InvalidArgumentError(
            '"super_user", "all_data_read_write" or a list of CachePermission and'
            f" TopicPermission, not {permissions!r}"
        )
    return _explicit(permissions)


def _whole_seconds(expires_in: Ttl, most: int) -> int:
    """`expires_in` as the whole seconds the protocol carries, from 1 to `most`."""
    value = seconds(expires_in)
    if value != int(value) or not 1 <= value <= most:
        raise InvalidArgumentError(
            f"expires_in is whole seconds from 1 to {most}, not {expires_in!r}"
        )
    return int(value)


def disposable_token_request(
    own_token: str, permissions: Permissions, expires_in: Ttl, token_id: str | None
) -> Any:
    """The minting token travels in the message, as the official SDKs send it."""
    return token_pb._GenerateDisposableTokenRequest(
        expires=token_pb._GenerateDisposableTokenRequest.Expires(
            valid_for_seconds=_whole_seconds(expires_in, MAX_DISPOSABLE_SECONDS)
        ),
        auth_token=own_token,
        permissions=permissions_message(permissions),
        token_id=token_id or "",
    )


def api_key_request(own_token: str, permissions: Permissions, expires_in: Ttl | None) -> Any:
    request = auth_pb._GenerateApiTokenRequest(
        auth_token=own_token, permissions=permissions_message(permissions)
    )
    if expires_in is None:
        request.never.SetInParent()
    else:
        request.expires.valid_for_seconds = _whole_seconds(expires_in, _MAX_SECONDS)
    return request


def refresh_request(own_token: str, refresh_token: str) -> Any:
    if not isinstance(refresh_token, str) or not refresh_token:
        raise InvalidArgumentError(f"refresh_token is a non-empty str, not {refresh_token!r}")
    return auth_pb._RefreshApiTokenRequest(api_key=own_token, refresh_token=refresh_token)


def _moment(epoch_seconds: int) -> datetime:
    # timezone.utc, not datetime.UTC: the package runs on Python 3.10.
    return datetime.fromtimestamp(epoch_seconds, timezone.utc)  # noqa: UP017


def read_disposable_token(response: Any) -> DisposableToken:
    return DisposableToken(response.api_key, response.endpoint, _moment(response.valid_until))


def read_api_key(response: Any) -> ApiKey:
    """An answer of GenerateApiToken or RefreshApiToken (valid_until 0: never expires)."""
    until = _moment(response.valid_until) if response.valid_until else None
    return ApiKey(response.api_key, response.refresh_token, response.endpoint, until)
