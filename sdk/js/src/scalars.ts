// Scalar calls: request builders and answer readers, as the collection
// modules are (collections/common.ts's Operation); CacheClient hands them to
// the route. Get, Set and Delete are KeyOperations: they also carry their
// protosocket command, and encode the gRPC request only if the route sends
// them over gRPC.
import { create, fromBinary } from '@bufbuild/protobuf';
import { type Bytes, int64ToWire, safeNumberFromWire, toBytes, ttlMsToWire } from './codec.js';
import { encode, type Operation } from './collections/common.js';
import * as scs from './gen/cacheclient_pb.js';
import * as common from './gen/common_pb.js';
import { RPCS, type CatalogueRpc } from './rpcs.gen.js';
import { Command } from './transport/protosocket-codec.js';

/** Condition of setIf: the six of the protocol. */
export type SetIfCondition =
  | { present: true }
  | { absent: true }
  | { equal: Bytes }
  | { notEqual: Bytes }
  | { presentAndNotEqual: Bytes }
  | { absentOrEqual: Bytes };

export type ItemType = 'scalar' | 'dictionary' | 'set' | 'list' | 'sorted_set';

/** How updateTtl changes the TTL: always, or only if longer / shorter than what is left. */
export type TtlUpdate = 'overwrite' | 'increase' | 'decrease';

const ITEM_TYPES: readonly ItemType[] = ['scalar', 'dictionary', 'set', 'list', 'sorted_set'];

/**
 * A call protosocket carries too: the command's fields beside the gRPC
 * request. Its protosocket answer (a Get's value or nothing) is its T.
 */
export interface KeyOperation<T> extends Operation<T> {
  rpc: CatalogueRpc;
  command: (typeof Command)['GET' | 'SET' | 'DELETE'];
  key: Bytes;
  value: Bytes | undefined;
  /** Set's TTL, checked; 0 for the others. */
  ttlMs: number;
}

/** A server-streaming call: every answer message, read at once. */
export interface StreamOperation<T> {
  rpc: Operation<T>['rpc'];
  request: Uint8Array;
  read(answers: Uint8Array[]): T;
}

function readGet(answer: Uint8Array): Uint8Array | undefined {
  const read = fromBinary(scs._GetResponseSchema, answer);
  return read.result === scs.ECacheResult.Hit ? read.cacheBody : undefined;
}

export function get(key: Bytes): KeyOperation<Uint8Array | undefined> {
  return {
    rpc: RPCS.Get,
    command: Command.GET,
    key,
    value: undefined,
    ttlMs: 0,
    get request() {
      return encode(scs._GetRequestSchema, { cacheKey: toBytes(key) });
    },
    read: readGet,
  };
}

export function set(key: Bytes, value: Bytes, ttlMs: number): KeyOperation<void> {
  const ttl = ttlMsToWire(ttlMs);
  return {
    rpc: RPCS.Set,
    command: Command.SET,
    key,
    value,
    ttlMs: ttl,
    get request() {
      return encode(scs._SetRequestSchema, { cacheKey: toBytes(key), cacheBody: toBytes(value), ttlMilliseconds: BigInt(ttl) });
    },
    read: () => undefined,
  };
}

export function remove(key: Bytes): KeyOperation<void> {
  return {
    rpc: RPCS.Delete,
    command: Command.DELETE,
    key,
    value: undefined,
    ttlMs: 0,
    get request() {
      return encode(scs._DeleteRequestSchema, { cacheKey: toBytes(key) });
    },
    read: () => undefined,
  };
}

function conditionToWire(condition: SetIfCondition): scs._SetIfRequest['condition'] {
  if ('present' in condition) return { case: 'present', value: create(common.PresentSchema) };
  if ('absent' in condition) return { case: 'absent', value: create(common.AbsentSchema) };
  if ('equal' in condition) {
    return { case: 'equal', value: create(common.EqualSchema, { valueToCheck: toBytes(condition.equal) }) };
  }
  if ('notEqual' in condition) {
    return { case: 'notEqual', value: create(common.NotEqualSchema, { valueToCheck: toBytes(condition.notEqual) }) };
  }
  if ('presentAndNotEqual' in condition) {
    const valueToCheck = toBytes(condition.presentAndNotEqual);
    return { case: 'presentAndNotEqual', value: create(common.PresentAndNotEqualSchema, { valueToCheck }) };
  }
  const valueToCheck = toBytes(condition.absentOrEqual);
  return { case: 'absentOrEqual', value: create(common.AbsentOrEqualSchema, { valueToCheck }) };
}

/** Resolves to whether the value was stored. */
export function setIf(key: Bytes, value: Bytes, condition: SetIfCondition, ttl: bigint): Operation<boolean> {
  return {
    rpc: RPCS.SetIf,
    request: encode(scs._SetIfRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds: ttl,
      condition: conditionToWire(condition),
    }),
    read: (answer) => fromBinary(scs._SetIfResponseSchema, answer).result.case === 'stored',
  };
}

/** Resolves to whether the value was stored. */
export function setIfAbsent(key: Bytes, value: Bytes, ttl: bigint): Operation<boolean> {
  return {
    rpc: RPCS.SetIfNotExists,
    request: encode(scs._SetIfNotExistsRequestSchema, { cacheKey: toBytes(key), cacheBody: toBytes(value), ttlMilliseconds: ttl }),
    read: (answer) => fromBinary(scs._SetIfNotExistsResponseSchema, answer).result.case === 'stored',
  };
}

/** The new value, as the amount's type (a `number` past 2^53 rejects rather than rounds). */
export function increment(key: Bytes, amount: number | bigint, ttl: bigint): Operation<number | bigint> {
  return {
    rpc: RPCS.Increment,
    request: encode(scs._IncrementRequestSchema, { cacheKey: toBytes(key), amount: int64ToWire(amount, 'amount'), ttlMilliseconds: ttl }),
    read(answer) {
      const { value } = fromBinary(scs._IncrementResponseSchema, answer);
      return typeof amount === 'bigint' ? value : safeNumberFromWire(value, 'increment');
    },
  };
}

export function keysExist(keys: readonly Bytes[]): Operation<boolean[]> {
  return {
    rpc: RPCS.KeysExist,
    request: encode(scs._KeysExistRequestSchema, { cacheKeys: keys.map(toBytes) }),
    read: (answer) => fromBinary(scs._KeysExistResponseSchema, answer).exists,
  };
}

/** Resolves to whether the TTL changed. */
export function updateTtl(key: Bytes, value: bigint, mode: TtlUpdate): Operation<boolean> {
  const updateTtl =
    mode === 'increase'
      ? { case: 'increaseToMilliseconds' as const, value }
      : mode === 'decrease'
        ? { case: 'decreaseToMilliseconds' as const, value }
        : { case: 'overwriteToMilliseconds' as const, value };
  return {
    rpc: RPCS.UpdateTtl,
    request: encode(scs._UpdateTtlRequestSchema, { cacheKey: toBytes(key), updateTtl }),
    read: (answer) => fromBinary(scs._UpdateTtlResponseSchema, answer).result.case === 'set',
  };
}

/** Milliseconds left, or undefined on a miss. */
export function getTtl(key: Bytes): Operation<number | undefined> {
  return {
    rpc: RPCS.ItemGetTtl,
    request: encode(scs._ItemGetTtlRequestSchema, { cacheKey: toBytes(key) }),
    read(answer) {
      const { result } = fromBinary(scs._ItemGetTtlResponseSchema, answer);
      return result.case === 'found' ? Number(result.value.remainingTtlMillis) : undefined;
    },
  };
}

export function getType(key: Bytes): Operation<ItemType | undefined> {
  return {
    rpc: RPCS.ItemGetType,
    request: encode(scs._ItemGetTypeRequestSchema, { cacheKey: toBytes(key) }),
    read(answer) {
      const { result } = fromBinary(scs._ItemGetTypeResponseSchema, answer);
      return result.case === 'found' ? (ITEM_TYPES[result.value.itemType] ?? 'scalar') : undefined;
    },
  };
}

/** The values of `keys` in order, undefined for each miss. */
export function getMany(keys: readonly Bytes[]): StreamOperation<(Uint8Array | undefined)[]> {
  return {
    rpc: RPCS.GetBatch,
    request: encode(scs._GetBatchRequestSchema, { items: keys.map((key) => ({ cacheKey: toBytes(key) })) }),
    read: (answers) => answers.map(readGet),
  };
}

export function setMany(
  entries: Iterable<readonly [Bytes, Bytes]> | Readonly<Record<string, Bytes>>,
  ttlMilliseconds: bigint,
): StreamOperation<void> {
  const pairs = Symbol.iterator in entries ? [...entries] : Object.entries(entries);
  const items = pairs.map(([key, value]) => ({ cacheKey: toBytes(key), cacheBody: toBytes(value), ttlMilliseconds }));
  return { rpc: RPCS.SetBatch, request: encode(scs._SetBatchRequestSchema, { items }), read: () => undefined };
}
