"""Every error the clients raise, and the one place a failed call becomes one.

Both transports hand up a failed call as a `StatusError`: a status name as
gRPC names them (protosocket numbers its statuses the same way), the
server's message, its `err` reason and which transport carried the call.
`error_from_status` maps it to this tree; nothing else does.

    CacheError
    ├── ConnectionError          UNAVAILABLE; eager connection that failed (refused, unknown
    │                            host, TLS mismatch) or timed out; client closed
    ├── TimeoutError             DEADLINE_EXCEEDED; the in-flight queue outlasted `deadline`
    ├── AuthenticationError      UNAUTHENTICATED
    ├── PermissionError          PERMISSION_DENIED
    ├── NotFoundError            NOT_FOUND (err: item_not_found)
    │   └── CacheNotFoundError   NOT_FOUND for the cache (err: store_not_found, or none)
    ├── AlreadyExistsError       ALREADY_EXISTS
    ├── LimitExceededError       RESOURCE_EXHAUSTED (`reason` holds the err trailer)
    ├── InvalidArgumentError     INVALID_ARGUMENT, OUT_OF_RANGE; a call or config the
    │   │                        client refuses before sending (wrong type, TTL 0, ...)
    │   └── WrongTypeError       FAILED_PRECONDITION
    └── ServerError              INTERNAL, UNKNOWN, UNIMPLEMENTED, DATA_LOSS, ABORTED, CANCELLED

FAILED_PRECONDITION is what the server answers when the item cannot take
the call (Increment on a value that is not an integer). It sits under
InvalidArgumentError because, like a bad argument, sending the same request
again cannot succeed: the caller has to change the request or the item. It
gets its own class so that code can tell "wrong item" from "malformed call".

Three names are the builtins' on purpose (the TypeScript SDK uses the same
names), and each also inherits the builtin it shadows, so both
`except jiffy.TimeoutError:` and a plain `except TimeoutError:` catch it;
likewise InvalidArgumentError is a ValueError, so code written for the
builtin exceptions keeps working.
"""

from __future__ import annotations

import builtins
import re


class StatusError(Exception):
    """A failed call as a transport hands it up, before it is mapped; not
    raised to users (they get the CacheError it maps to, `from` it)."""

    def __init__(self, code: str, message: str, reason: str | None, transport: str) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        """The status name: "UNAVAILABLE", "NOT_FOUND", ..."""
        self.message = message
        self.reason = reason
        """The server's `err` reason ("item_size_limit_exceeded", ...), or None."""
        self.transport = transport
        """What carried the call: "grpc" or "protosocket"."""


class CacheError(Exception):
    """Base of every error raised by jiffy.

    `status` is the gRPC status name (None when no call was made), `reason`
    the server's `err` trailer when it sent one.
    """

    def __init__(self, message: str, *, status: str | None = None, reason: str | None = None):
        super().__init__(message)
        self.status = status
        self.reason = reason


class ConnectionError(CacheError, builtins.ConnectionError):  # noqa: A001 - every SDK's name
    """The server could not be reached, or the client is closed."""


class TimeoutError(CacheError, builtins.TimeoutError):  # noqa: A001
    """The call did not finish within the configured deadline."""


class AuthenticationError(CacheError):
    """The API key is missing, malformed or expired."""


class PermissionError(CacheError, builtins.PermissionError):  # noqa: A001
    """The API key does not allow this call."""


class NotFoundError(CacheError):
    """Something the call needs does not exist."""


class CacheNotFoundError(NotFoundError):
    """The cache named by the call does not exist."""


class AlreadyExistsError(CacheError):
    """The cache to create exists already."""


class LimitExceededError(CacheError):
    """A server limit was hit: item size, request size, rate, number of caches."""


class InvalidArgumentError(CacheError, ValueError):
    """The request is malformed (bad key, TTL, cache name): refused by the
    server, or by the client before sending it."""


class WrongTypeError(InvalidArgumentError):
    """The item cannot take this call, e.g. increment of a non-integer value."""


class ServerError(CacheError):
    """The server failed, or does not implement the call."""


_CLASS_BY_STATUS: dict[str, type[CacheError]] = {
    "UNAVAILABLE": ConnectionError,
    "DEADLINE_EXCEEDED": TimeoutError,
    "UNAUTHENTICATED": AuthenticationError,
    "PERMISSION_DENIED": PermissionError,
    "NOT_FOUND": NotFoundError,
    "ALREADY_EXISTS": AlreadyExistsError,
    "RESOURCE_EXHAUSTED": LimitExceededError,
    "INVALID_ARGUMENT": InvalidArgumentError,
    "OUT_OF_RANGE": InvalidArgumentError,
    "FAILED_PRECONDITION": WrongTypeError,
}

# What to change, by `err` trailer, where the trailer says more than the status.
_ADVICE_BY_REASON = {
    "item_size_limit_exceeded": "the value is larger than the server's item limit"
    " (jiffy-server --max-value-size); store smaller values",
    "element_size_limit_exceeded": "an element is larger than the server's limit",
    "request_size_limit_exceeded": "the request is larger than the server's limit"
    " (jiffy-server --max-request-size); split the batch",
    "operations_rate_limit_exceeded": "the cache's request rate limit was hit;"
    " send fewer requests per second or ask for a higher limit",
    "throughput_rate_limit_exceeded": "the cache's throughput limit was hit;"
    " send fewer bytes per second or ask for a higher limit",
}


# jiffy-server's words for a missing cache (server/src/error.rs). The rest of
# its message names the RPC and the CLI command; here the method is named.
_MISSING_CACHE = re.compile(r"cache `([^`]*)` does not exist")
_CACHE_NAME = re.compile(r"[A-Za-z0-9._-]+")
# Creating the cache is no answer to these calls' NOT_FOUND.
_NO_CREATE_ADVICE = frozenset({"DeleteCache", "FlushCache"})


def _missing_cache(call: str, details: str) -> str:
    """A missing cache's message: what is missing, and the method that creates it."""
    found = _MISSING_CACHE.search(details)
    what = found[0] if found else details
    if call in _NO_CREATE_ADVICE:
        return what
    name = found[1] if found and _CACHE_NAME.fullmatch(found[1]) else None
    create = (
        f"client.create_cache({name!r}) (CLI: jiffy cache create {name})"
        if name
        else "client.create_cache(name) (CLI: jiffy cache create NAME)"
    )
    return f"{what}; create it first with {create}" if what else f"create it first with {create}"


def _advice(status: str, reason: str | None, deadline: float, target: str) -> str:
    if reason in _ADVICE_BY_REASON:
        return _ADVICE_BY_REASON[reason]
    if status == "DEADLINE_EXCEEDED":
        return f"no answer within {deadline:g} s; raise `deadline` in the config"
    if status == "UNAVAILABLE":
        return (
            f"server {target} unavailable; check the endpoint,"
            " or raise `retry.max_attempts` to ride out restarts"
        )
    if status == "UNAUTHENTICATED":
        return "check the API key (JIFFY_API_KEY / MOMENTO_API_KEY)"
    if status == "RESOURCE_EXHAUSTED":
        return "a server limit was hit (e.g. jiffy-server --max-caches)"
    return ""


def error_from_status(
    failed: StatusError, *, call: str, deadline: float, target: str, cache_call: bool
) -> CacheError:
    """Translate a failed call into the CacheError to raise `from` what failed.

    `cache_call` says whether the call named a cache (data plane or a control
    call on one cache), so that NOT_FOUND without a reason means the cache.
    """
    status, details, reason = failed.code, failed.message, failed.reason
    cls = _CLASS_BY_STATUS.get(status, ServerError)
    if cls is NotFoundError and (reason == "store_not_found" or (reason is None and cache_call)):
        cls = CacheNotFoundError
    parts = [f"{call} failed: {status}"]
    if cls is CacheNotFoundError:
        details = _missing_cache(call, details)
    if details:
        parts.append(details)
    advice = _advice(status, reason, deadline, target)
    if advice:
        parts.append(advice)
    return cls(": ".join(parts), status=status, reason=reason)


def client_closed(call: str) -> ConnectionError:
    """A call on a client after `close()` / `aclose()`."""
    return ConnectionError(f"{call} failed: the client is closed; create a new client")


def queue_timeout(call: str, deadline: float, cap: int) -> TimeoutError:
    """The call waited its whole deadline for a slot under the in-flight cap."""
    return TimeoutError(
        f"{call} waited {deadline:g} s for one of {cap} in-flight slots; raise"
        " `max_concurrent_requests` (or `deadline`) in the config, or send fewer"
        " calls at once",
        status="DEADLINE_EXCEEDED",
    )
