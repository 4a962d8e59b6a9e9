// The hash calls: scalar values read with a hash the server computes over
// them, and written only if a condition on that hash holds, so a
// compare-and-set need not carry the whole value it compares against.
// Request builders and answer readers; CacheClient sends them.
import { fromBinary } from '@bufbuild/protobuf';
import { type Bytes, describe, toBytes } from '../codec.js';
import * as scs from '../gen/cacheclient_pb.js';
import { RPCS } from '../rpcs.gen.js';
import { encode, invalid, type Operation } from './common.js';

/** A value and the server's hash of it (jiffy-server: SHA-1 as 40 lowercase hex bytes). */
export interface ValueWithHash {
  value: Uint8Array;
  hash: Uint8Array;
}

/**
 * Condition of setIfHash, each on the hash getWithHash answered (a hash is
 * only ever compared, never computed by the SDK):
 * - `{ presentAndHashEqual: hash }`: the key holds a value with this hash;
 * - `{ presentAndNotHashEqual: hash }`: the key holds a value with another hash;
 * - `{ absentOrHashEqual: hash }`: the key is absent, or its value has this hash;
 * - `{ absentOrNotHashEqual: hash }`: the key is absent, or its value has another hash;
 * - `{ unconditional: true }`: always stores.
 */
export type SetIfHashCondition =
  | { presentAndHashEqual: Bytes }
  | { presentAndNotHashEqual: Bytes }
  | { absentOrHashEqual: Bytes }
  | { absentOrNotHashEqual: Bytes }
  | { unconditional: true };

export function getWithHash(key: Bytes): Operation<ValueWithHash | undefined> {
  return {
    rpc: RPCS.GetWithHash,
    request: encode(scs._GetWithHashRequestSchema, { cacheKey: toBytes(key) }),
    read(answer) {
      const { result } = fromBinary(scs._GetWithHashResponseSchema, answer);
      return result.case === 'found' ? { value: result.value.value, hash: result.value.hash } : undefined;
    },
  };
}

function conditionToWire(condition: SetIfHashCondition) {
  if (condition === null || typeof condition !== 'object') throw invalid(`a setIfHash condition is an object; got ${describe(condition)}`);
  const hashToCheck = (hash: Bytes) => ({ hashToCheck: toBytes(hash) });
  if ('presentAndHashEqual' in condition) return { case: 'presentAndHashEqual' as const, value: hashToCheck(condition.presentAndHashEqual) };
  if ('presentAndNotHashEqual' in condition) {
    return { case: 'presentAndNotHashEqual' as const, value: hashToCheck(condition.presentAndNotHashEqual) };
  }
  if ('absentOrHashEqual' in condition) return { case: 'absentOrHashEqual' as const, value: hashToCheck(condition.absentOrHashEqual) };
  if ('absentOrNotHashEqual' in condition) {
    return { case: 'absentOrNotHashEqual' as const, value: hashToCheck(condition.absentOrNotHashEqual) };
  }
  if ('unconditional' in condition && condition.unconditional === true) return { case: 'unconditional' as const, value: {} };
  throw invalid(
    'a setIfHash condition is one of { presentAndHashEqual }, { presentAndNotHashEqual }, { absentOrHashEqual }, ' +
      `{ absentOrNotHashEqual }, { unconditional: true }; got keys ${Object.keys(condition).join(', ') || '(none)'}`,
  );
}

/** Resolves to whether the value was stored. */
export function setIfHash(key: Bytes, value: Bytes, condition: SetIfHashCondition, ttlMilliseconds: bigint): Operation<boolean> {
  return {
    rpc: RPCS.SetIfHash,
    request: encode(scs._SetIfHashRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds,
      condition: conditionToWire(condition),
    }),
    read: (answer) => fromBinary(scs._SetIfHashResponseSchema, answer).result.case === 'stored',
  };
}
