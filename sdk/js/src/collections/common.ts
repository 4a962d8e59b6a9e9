// What every collection module shares: the Operation a request builder
// hands the client (RPC, request bytes, answer reader), the collection TTL,
// and the argument checks that reject before any RPC is sent.
import { create, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import type { Rpc } from '../call-runner.js';
import { type Bytes, describe, toBytes, ttlToWire } from '../codec.js';
import { InvalidArgumentError } from '../errors.js';
import * as common from '../gen/common_pb.js';

/**
 * TTL of a collection write, as the protocol's CollectionTtl.
 *
 * `ttlMs` defaults to the client's `defaultTtlMs`. With `refreshTtl` true
 * (the default) the write resets the collection's TTL to `ttlMs`; with
 * false, `ttlMs` applies only when this write creates the collection and an
 * existing collection keeps the TTL it has.
 */
export interface CollectionOptions {
  ttlMs?: number;
  refreshTtl?: boolean;
}

/** The two TTL fields every collection write carries on the wire. */
export interface WireTtl {
  ttlMilliseconds: bigint;
  refreshTtl: boolean;
}

/** One call ready to send: where, what, and how to read the answer. */
export interface Operation<T> {
  rpc: Rpc;
  request: Uint8Array;
  read(answer: Uint8Array): T;
}

export function encode<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): Uint8Array {
  return toBinary(schema, create(schema, init));
}

export function invalid(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message, { status: 'INVALID_ARGUMENT' });
}

export function wireTtl(options: CollectionOptions, defaultTtlMs: number): WireTtl {
  const refreshTtl = options.refreshTtl ?? true;
  if (typeof refreshTtl !== 'boolean') throw invalid(`\`refreshTtl\` is a boolean; got ${describe(refreshTtl)}`);
  return { ttlMilliseconds: ttlToWire(options.ttlMs ?? defaultTtlMs), refreshTtl };
}

/** An integer option within [min, max] (the wire field's range). */
export function integerIn(value: unknown, option: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`\`${option}\` must be an integer from ${min} to ${max}; got ${describe(value)}`);
  }
  return value;
}

export const UINT32_MAX = 0xffff_ffff;
const SINT32_MIN = -0x8000_0000;
const SINT32_MAX = 0x7fff_ffff;

export const uint32 = (value: unknown, option: string, min = 0): number => integerIn(value, option, min, UINT32_MAX);
export const sint32 = (value: unknown, option: string): number => integerIn(value, option, SINT32_MIN, SINT32_MAX);

/** One of a few named options (`order`, `aggregate`), as the wire's enum value; undefined is `fallback`. */
export function oneOf<K extends string, V>(table: Readonly<Record<K, V>>, key: K | undefined, fallback: K, option: string): V {
  const chosen = key ?? fallback;
  if (!Object.hasOwn(table, chosen)) {
    throw invalid(`\`${option}\` is one of ${Object.keys(table).map((k) => `'${k}'`).join(', ')}; got ${describe(key)}`);
  }
  return table[chosen];
}

/** A finite double (scores, amounts): NaN and infinities are refused by the server too. */
export function finite(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalid(`\`${option}\` must be a finite number; got ${describe(value)}`);
  }
  return value;
}

/** A list of keys or values as wire bytes; a non-array is refused here, not deep in the encoder. */
export function bytesList(values: readonly Bytes[], what: string, { nonEmpty = false } = {}): Uint8Array[] {
  if (!Array.isArray(values)) throw invalid(`${what} are an array; got ${describe(values)}`);
  if (nonEmpty && values.length === 0) throw invalid(`${what}: give at least one`);
  return values.map(toBytes);
}

/** The name of a collection: bytes, at least one (the server refuses an empty one). */
export function collectionName(name: Bytes, kind: string): Uint8Array {
  const bytes = toBytes(name);
  if (bytes.length === 0) throw invalid(`the ${kind} name is empty`);
  return bytes;
}

/** A slice as Python takes it: `start` inclusive, `end` exclusive, negatives count from the end. */
export interface Slice {
  /** First index (inclusive); negative counts from the end; omitted = from the first. */
  start?: number;
  /** Index to stop before (exclusive); negative counts from the end; omitted = to the last. */
  end?: number;
}

/** The open end of a range. */
export function unbounded(): common._Unbounded {
  return create(common._UnboundedSchema);
}

/** A slice's ends, checked: integers in the wire's sint32 range, or undefined for open. */
export function checkedSlice(slice: Slice | undefined): Slice {
  if (slice === undefined) return {};
  if (slice === null || typeof slice !== 'object') throw invalid(`a slice is { start?, end? }; got ${describe(slice)}`);
  return {
    start: slice.start === undefined ? undefined : sint32(slice.start, 'start'),
    end: slice.end === undefined ? undefined : sint32(slice.end, 'end'),
  };
}

/**
 * Pairs to write: any iterable of [key, value] pairs (a Map, a BytesMap, an
 * array), or a Record (keys as UTF-8).
 */
export type Entries<K, V> = Iterable<readonly [K, V]> | Readonly<Record<string, V>>;

/** Non-empty entries as an array of pairs. */
export function pairsOf<K, V>(entries: Entries<K, V>, what: string): (readonly [K | string, V])[] {
  if (entries === null || typeof entries !== 'object') throw invalid(`${what} are a Map, a Record or an array of pairs; got ${describe(entries)}`);
  // A map or an array iterates its pairs; a Record is not iterable.
  const pairs: (readonly [K | string, V])[] = Symbol.iterator in entries ? [...entries] : Object.entries(entries);
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) throw invalid(`${what}: each entry is a [key, value] pair`);
  }
  if (pairs.length === 0) throw invalid(`${what}: give at least one`);
  return pairs;
}
