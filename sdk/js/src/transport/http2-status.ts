// gRPC status handling for the node:http2 transport: status codes, the
// `grpc-timeout` header, percent-decoding of `grpc-message`, the gRPC spec's
// HTTP-to-gRPC table, RST_STREAM codes, and reading a status out of a
// trailers (or trailers-only headers) block.
//
// Everything here runs only when a call ends badly or once per call on
// primitive values, so the success path allocates nothing in this module
// beyond the timeout string.

import type { IncomingHttpHeaders } from 'node:http2';
import { StatusError } from './channel.js';

/** gRPC status codes used by the transport (grpc-js `status` numbering). */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** Largest value the `grpc-timeout` header may carry: at most 8 digits. */
const MAX_TIMEOUT_DIGITS_VALUE = 99_999_999;

/** Units from fine to coarse, with their size in milliseconds. */
const TIMEOUT_UNITS: readonly (readonly [string, number])[] = [
  ['m', 1],
  ['S', 1_000],
  ['M', 60_000],
  ['H', 3_600_000],
];

/**
 * The `grpc-timeout` header for a call with `remainingMs` left. Rounds up, so
 * the server never sees a deadline earlier than ours, and never sends zero
 * (the caller fails calls whose deadline has already passed before sending).
 */
export function encodeGrpcTimeout(remainingMs: number): string {
  const ms = Math.max(1, Math.ceil(remainingMs));
  for (const [unit, size] of TIMEOUT_UNITS) {
    const value = Math.ceil(ms / size);
    if (value <= MAX_TIMEOUT_DIGITS_VALUE) return `${value}${unit}`;
  }
  return `${MAX_TIMEOUT_DIGITS_VALUE}H`;
}

/**
 * Decodes a percent-encoded `grpc-message`. Malformed escapes are kept as
 * they are (the spec asks receivers not to fail on them), and the bytes are
 * read as UTF-8.
 */
export function decodeGrpcMessage(raw: string): string {
  if (!raw.includes('%')) return raw;
  // A multi-byte character is a run of escapes, so each run is decoded whole.
  return raw.replace(PERCENT_RUN, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * The gRPC status for a response whose HTTP status is not 200 and that
 * carries no `grpc-status` (the table in the gRPC spec,
 * "HTTP to gRPC Status Code Mapping").
 */
export function grpcCodeForHttpStatus(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
      return Code.INTERNAL;
    case 401:
      return Code.UNAUTHENTICATED;
    case 403:
      return Code.PERMISSION_DENIED;
    case 404:
      return Code.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.UNAVAILABLE;
    default:
      return Code.UNKNOWN;
  }
}

/** HTTP/2 RST_STREAM error codes the transport treats specially. */
export const RstCode = {
  NO_ERROR: 0,
  REFUSED_STREAM: 7,
  CANCEL: 8,
  ENHANCE_YOUR_CALM: 11,
  INADEQUATE_SECURITY: 12,
} as const;

/** The gRPC status for a stream the server reset before sending a status. */
export function grpcCodeForRstCode(rstCode: number): number {
  switch (rstCode) {
    case RstCode.REFUSED_STREAM:
      return Code.UNAVAILABLE;
    case RstCode.CANCEL:
      return Code.CANCELLED;
    case RstCode.ENHANCE_YOUR_CALM:
      return Code.RESOURCE_EXHAUSTED;
    case RstCode.INADEQUATE_SECURITY:
      return Code.PERMISSION_DENIED;
    default:
      return Code.INTERNAL;
  }
}

/**
 * Reads `grpc-status` from a headers block; undefined when absent. A value
 * that is not a number is reported as UNKNOWN, as the spec asks.
 */
export function readGrpcStatus(headers: IncomingHttpHeaders): number | undefined {
  const raw = headers['grpc-status'];
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (text === '0') return Code.OK;
  const code = Number(text);
  return Number.isInteger(code) && code >= 0 ? code : Code.UNKNOWN;
}

/**
 * The StatusError for a non-OK `grpc-status` in `headers`: details from the
 * percent-decoded `grpc-message`, every non-pseudo header as trailers (so
 * `err` reaches the client's error mapping).
 */
export function statusErrorFromTrailers(code: number, headers: IncomingHttpHeaders): StatusError {
  const trailers: Record<string, string> = {};
  for (const key of Object.keys(headers)) {
    if (key.startsWith(':')) continue;
    const value = headers[key];
    if (value !== undefined) trailers[key] = Array.isArray(value) ? value.join(',') : String(value);
  }
  const message = trailers['grpc-message'];
  return new StatusError(code, message === undefined ? '' : decodeGrpcMessage(message), trailers);
}
