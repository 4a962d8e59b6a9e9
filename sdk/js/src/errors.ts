// Every error the client rejects with, and the one place a transport's
// StatusError becomes one of them.
//
//   CacheError
//   ├── ConnectionError          UNAVAILABLE; eager connect that failed (refused, unknown
//   │                            host, TLS mismatch) or timed out; client closed
//   ├── TimeoutError             DEADLINE_EXCEEDED; the in-flight queue outlasted `deadlineMs`
//   ├── AuthenticationError      UNAUTHENTICATED
//   ├── PermissionError          PERMISSION_DENIED
//   ├── NotFoundError            NOT_FOUND (err: item_not_found)
//   │   └── CacheNotFoundError   NOT_FOUND for the cache (err: store_not_found, or none)
//   ├── AlreadyExistsError       ALREADY_EXISTS
//   ├── LimitExceededError       RESOURCE_EXHAUSTED (`reason`: the err trailer, or protosocket's
//   │                            CommandError.reason)
//   ├── InvalidArgumentError     INVALID_ARGUMENT, OUT_OF_RANGE; a call or option the
//   │   │                        client refuses before sending (wrong type, bad endpoint, ...)
//   │   └── WrongTypeError       FAILED_PRECONDITION
//   └── ServerError              INTERNAL, UNKNOWN, UNIMPLEMENTED, DATA_LOSS, ABORTED, CANCELLED
//
// FAILED_PRECONDITION is the server's answer when the item cannot take the
// call: increment of a value that is not an integer, a collection call on an
// item of another type (a list call on a dictionary), a sorted-set score
// that would overflow. Like a bad argument,
// sending it again cannot succeed, so WrongTypeError sits under
// InvalidArgumentError; its own class tells "wrong item" from "bad call".
// The tree and the names are the same in the Python SDK.
import { StatusError } from './transport/channel.js';
import { Status, statusName } from './status.js';

export class CacheError extends Error {
  /** gRPC status name (`'UNAVAILABLE'`), undefined when no call was made. */
  readonly status: string | undefined;
  /** The server's `err` trailer, when it sent one. */
  readonly reason: string | undefined;

  constructor(message: string, options: { status?: string; reason?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
    this.reason = options.reason;
  }
}

/** The server could not be reached, or the client is closed. */
export class ConnectionError extends CacheError {}
/** The call did not finish within `deadlineMs`. */
export class TimeoutError extends CacheError {}
/** The API key is missing, malformed or expired. */
export class AuthenticationError extends CacheError {}
/** The API key does not allow this call. */
export class PermissionError extends CacheError {}
/** Something the call needs does not exist. */
export class NotFoundError extends CacheError {}
/** The cache named by the call does not exist. */
export class CacheNotFoundError extends NotFoundError {}
/** The cache to create exists already. */
export class AlreadyExistsError extends CacheError {}
/** A server limit was hit: item size, request size, rate, number of caches. */
export class LimitExceededError extends CacheError {}
/**
 * The request is malformed (bad key, TTL, cache name): refused by the server,
 * or by the client before sending it; also a bad option or endpoint.
 */
export class InvalidArgumentError extends CacheError {}
/** The item cannot take this call: increment of a non-integer value, a collection call on an item of another type. */
export class WrongTypeError extends InvalidArgumentError {}
/** The server failed, or does not implement the call. */
export class ServerError extends CacheError {}

type ErrorClass = new (message: string, options?: { status?: string; reason?: string; cause?: unknown }) => CacheError;

const CLASS_BY_STATUS: ReadonlyMap<number, ErrorClass> = new Map<number, ErrorClass>([
  [Status.UNAVAILABLE, ConnectionError],
  [Status.DEADLINE_EXCEEDED, TimeoutError],
  [Status.UNAUTHENTICATED, AuthenticationError],
  [Status.PERMISSION_DENIED, PermissionError],
  [Status.NOT_FOUND, NotFoundError],
  [Status.ALREADY_EXISTS, AlreadyExistsError],
  [Status.RESOURCE_EXHAUSTED, LimitExceededError],
  [Status.INVALID_ARGUMENT, InvalidArgumentError],
  [Status.OUT_OF_RANGE, InvalidArgumentError],
  [Status.FAILED_PRECONDITION, WrongTypeError],
]);

// What to change, by `err` trailer, where the trailer says more than the status.
const ADVICE_BY_REASON: Readonly<Record<string, string>> = {
  item_size_limit_exceeded:
    "the value is larger than the server's item limit (jiffy-server --max-value-size); store smaller values",
  element_size_limit_exceeded: "an element is larger than the server's limit",
  request_size_limit_exceeded:
    "the request is larger than the server's limit (jiffy-server --max-request-size); split the batch",
  operations_rate_limit_exceeded:
    "the cache's request rate limit was hit; send fewer requests per second or ask for a higher limit",
  throughput_rate_limit_exceeded:
    "the cache's throughput limit was hit; send fewer bytes per second or ask for a higher limit",
};

/** What the mapping needs to know about the call besides its status. */
export interface CallContext {
  /** Method name for the message, e.g. `'Get'`. */
  call: string;
  deadlineMs: number;
  /** host:port the call went to. */
  target: string;
  /** The call named a cache, so NOT_FOUND without a reason means the cache. */
  cacheCall: boolean;
}

function advice(code: number, reason: string | undefined, context: CallContext): string {
  if (reason !== undefined && reason in ADVICE_BY_REASON) return ADVICE_BY_REASON[reason]!;
  switch (code) {
    case Status.DEADLINE_EXCEEDED:
      return `no answer within ${context.deadlineMs} ms; raise \`deadlineMs\` in the options`;
    case Status.UNAVAILABLE:
      return `server ${context.target} unavailable; check the endpoint, or raise \`retry.maxAttempts\` to ride out restarts`;
    case Status.UNAUTHENTICATED:
      return 'check the API key (`apiKey`, JIFFY_API_KEY or MOMENTO_API_KEY)';
    case Status.RESOURCE_EXHAUSTED:
      return 'a server limit was hit (e.g. jiffy-server --max-caches)';
    default:
      return '';
  }
}

// jiffy-server's words for a missing cache (server/src/error.rs). The rest of
// its message names the RPC and the CLI command; here the method is named.
const MISSING_CACHE = /cache `([^`]*)` does not exist/;
const CACHE_NAME = /^[A-Za-z0-9._-]+$/;
// Creating the cache is no answer to these calls' NOT_FOUND.
const NO_CREATE_ADVICE: ReadonlySet<string> = new Set(['DeleteCache', 'FlushCache']);

/** A missing cache's message: what is missing, and the method that creates it. */
function missingCache(call: string, details: string): string {
  const found = MISSING_CACHE.exec(details);
  const what = found?.[0] ?? details;
  if (NO_CREATE_ADVICE.has(call)) return what;
  const name = found !== null && CACHE_NAME.test(found[1]!) ? found[1]! : undefined;
  const create =
    name === undefined
      ? 'cacheClient.createCache(name) (CLI: jiffy cache create NAME)'
      : `cacheClient.createCache('${name}') (CLI: jiffy cache create ${name})`;
  return what ? `${what}; create it first with ${create}` : `create it first with ${create}`;
}

/** The reasons the client acts on, as the server names them (server/src/error.rs `reason`). */
export const Reason = {
  /** A protosocket Get of a value its answer cannot carry: gRPC can read it. */
  ANSWER_TOO_LARGE_FOR_PROTOSOCKET: 'answer_too_large_for_protosocket',
} as const;

// A server older than CommandError's `reason` field says a protosocket
// failure's reason only in its message: read from the message's end here,
// and nowhere else.
const REASON_BY_MESSAGE_END: readonly (readonly [string, string])[] = [
  ['a protosocket answer can carry; read it over gRPC', Reason.ANSWER_TOO_LARGE_FOR_PROTOSOCKET],
];

/** A failure's reason: the `err` trailer (gRPC) or CommandError.reason (protosocket), else from an older server's message. */
export function reasonOf(err: StatusError): string | undefined {
  const sent = err.trailers.err;
  if (sent !== undefined) return sent;
  for (const [end, reason] of REASON_BY_MESSAGE_END) if (err.details.endsWith(end)) return reason;
  return undefined;
}

/** Translates a failed call into the CacheError to reject with. */
export function errorFromStatus(err: StatusError, context: CallContext): CacheError {
  const reason = reasonOf(err);
  let ErrorType = CLASS_BY_STATUS.get(err.code) ?? ServerError;
  if (ErrorType === NotFoundError && (reason === 'store_not_found' || (reason === undefined && context.cacheCall))) {
    ErrorType = CacheNotFoundError;
  }
  const name = statusName(err.code);
  const parts = [`${context.call} failed: ${name}`];
  const details = ErrorType === CacheNotFoundError ? missingCache(context.call, err.details) : err.details;
  if (details) parts.push(details);
  const hint = advice(err.code, reason, context);
  if (hint) parts.push(hint);
  return new ErrorType(parts.join(': '), { status: name, reason, cause: err });
}

/** Any failure (a StatusError or an unexpected throw) as a CacheError. */
export function toCacheError(err: unknown, context: CallContext): CacheError {
  if (err instanceof CacheError) return err;
  if (err instanceof StatusError) return errorFromStatus(err, context);
  const message = err instanceof Error ? err.message : String(err);
  return new ServerError(`${context.call} failed: ${message}`, { status: 'UNKNOWN', cause: err });
}

/** The call waited its whole deadline for a slot under the in-flight cap. */
export function queueTimeout(call: string, deadlineMs: number, cap: number): TimeoutError {
  return new TimeoutError(
    `${call} waited ${deadlineMs} ms for one of ${cap} in-flight slots; raise \`maxConcurrentRequests\` ` +
      '(or `deadlineMs`) in the options, or send fewer calls at once',
    { status: 'DEADLINE_EXCEEDED' },
  );
}

/** A call on a client after close(). */
export function clientClosed(call: string): ConnectionError {
  return new ConnectionError(`${call} failed: the client is closed; create a new CacheClient`);
}
