// Conversions between the caller's types and the wire's: keys and values
// as string or bytes, TTLs as integer milliseconds, int64 as number.
import { InvalidArgumentError } from './errors.js';

/** A key or value: a string (sent as UTF-8) or bytes. */
export type Bytes = string | Uint8Array;

export function toBytes(value: Bytes): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

export function toUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** A TTL in ms as the wire's uint64; rejects what the server would refuse anyway. */
export function ttlToWire(ttlMs: number, option = 'ttlMs'): bigint {
  if (!Number.isFinite(ttlMs) || ttlMs < 1) {
    throw new InvalidArgumentError(`\`${option}\` must be at least 1 ms; got ${ttlMs}`, { status: 'INVALID_ARGUMENT' });
  }
  return BigInt(Math.round(ttlMs));
}

export function int64ToWire(value: number, option: string): bigint {
  if (!Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(`\`${option}\` must be a safe integer; got ${value}`, { status: 'INVALID_ARGUMENT' });
  }
  return BigInt(value);
}
