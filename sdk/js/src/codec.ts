// Conversions between the caller's types and the wire's: keys and values
// as string or bytes, TTLs as integer milliseconds, int64 as number.
import { InvalidArgumentError } from './errors.js';

/** A key or value: a string (sent as UTF-8) or bytes. */
export type Bytes = string | Uint8Array;

/**
 * A key or value as wire bytes. Checked here, not left to the protobuf
 * encoder: it would send `null` or `undefined` as an empty value (a `set`
 * that silently empties an item) and fail on a number with its own error.
 */
export function toBytes(value: Bytes): Uint8Array {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  checkBytes(value);
  return value;
}

/** Throws as toBytes does for what is neither a string nor bytes, without converting. */
export function checkBytes(value: Bytes): void {
  if (typeof value === 'string' || value instanceof Uint8Array) return;
  throw new InvalidArgumentError(`keys and values are a string or a Uint8Array; got ${describe(value)}`, {
    status: 'INVALID_ARGUMENT',
  });
}

/** What a caller passed, for a message: the value and, when it helps, its type. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return `'${value}' (a string)`;
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'Object'}`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return `${value} (a ${typeof value})`;
  }
  return `a ${typeof value}`;
}

/** Values decoded as UTF-8, e.g. `decodeUtf8(await client.setFetch(cache, 'tags'))` or `decodeUtf8(map.keys())`. */
export function decodeUtf8(values: Iterable<Uint8Array>): string[] {
  return Array.from(values, toUtf8);
}

export function toUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** A TTL in ms as the wire's uint64; rejects what the server would refuse anyway. */
export function ttlToWire(ttlMs: number, option = 'ttlMs'): bigint {
  return BigInt(ttlMsToWire(ttlMs, option));
}

/** ttlToWire as a number, for the protosocket encoder (no BigInt per call). */
export function ttlMsToWire(ttlMs: number, option = 'ttlMs'): number {
  if (typeof ttlMs !== 'number') {
    throw new InvalidArgumentError(`\`${option}\` is a number of milliseconds; got ${describe(ttlMs)}`, {
      status: 'INVALID_ARGUMENT',
    });
  }
  if (!Number.isFinite(ttlMs) || ttlMs < 1) {
    throw new InvalidArgumentError(`\`${option}\` must be at least 1 ms; got ${ttlMs}`, { status: 'INVALID_ARGUMENT' });
  }
  return Math.round(ttlMs);
}

export function int64ToWire(value: number | bigint, option: string): bigint {
  if (typeof value === 'bigint') {
    if (BigInt.asIntN(64, value) !== value) {
      throw new InvalidArgumentError(`\`${option}\` must fit in a signed 64-bit integer; got ${value}`, {
        status: 'INVALID_ARGUMENT',
      });
    }
    return value;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(
      `\`${option}\` must be a safe integer (or a bigint); got ${describe(value)}`,
      { status: 'INVALID_ARGUMENT' },
    );
  }
  return BigInt(value);
}

/**
 * An int64 answer as a `number`. One past Number.MAX_SAFE_INTEGER rejects
 * with the exact value rather than resolving to a rounded one: the call did
 * happen, and the caller can pass a bigint amount next time.
 */
export function safeNumberFromWire(value: bigint, call: string): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result)) {
    throw new InvalidArgumentError(
      `${call} stored ${value}, past Number.MAX_SAFE_INTEGER: pass the amount as a bigint (e.g. 1n) for exact results`,
      { status: 'OUT_OF_RANGE' },
    );
  }
  return result;
}
