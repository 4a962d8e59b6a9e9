// Sets: distinct elements, unordered. Request builders and answer readers;
// CacheClient sends them. A missing set reads as an empty one
// (sdk/spec.json `missing_collection`).
import { fromBinary } from '@bufbuild/protobuf';
import { BytesSet } from '../bytes-collections.js';
import type { Bytes } from '../codec.js';
import * as scs from '../gen/cacheclient_pb.js';
import { RPCS } from '../rpcs.gen.js';
import { bytesList, collectionName, encode, integerIn, type Operation, uint32, type WireTtl } from './common.js';

const name = (setName: Bytes): Uint8Array => collectionName(setName, 'set');

/** Adds the elements; adding none is allowed and changes nothing (no set is created). */
export function addElements(setName: Bytes, elements: readonly Bytes[], ttl: WireTtl): Operation<void> {
  return {
    rpc: RPCS.SetUnion,
    request: encode(scs._SetUnionRequestSchema, { setName: name(setName), elements: bytesList(elements, 'elements'), ...ttl }),
    read: () => undefined,
  };
}

export function removeElements(setName: Bytes, elements: readonly Bytes[]): Operation<void> {
  const subtrahend = { subtrahendSet: { case: 'set' as const, value: { elements: bytesList(elements, 'elements') } } };
  return {
    rpc: RPCS.SetDifference,
    request: encode(scs._SetDifferenceRequestSchema, { setName: name(setName), difference: { case: 'subtrahend', value: subtrahend } }),
    read: () => undefined,
  };
}

export function fetch(setName: Bytes): Operation<BytesSet> {
  return {
    rpc: RPCS.SetFetch,
    request: encode(scs._SetFetchRequestSchema, { setName: name(setName) }),
    read(answer) {
      const { set } = fromBinary(scs._SetFetchResponseSchema, answer);
      return new BytesSet(set.case === 'found' ? set.value.elements : []);
    },
  };
}

export function containsElements(setName: Bytes, elements: readonly Bytes[]): Operation<boolean[]> {
  const wireElements = bytesList(elements, 'elements');
  return {
    rpc: RPCS.SetContains,
    request: encode(scs._SetContainsRequestSchema, { setName: name(setName), elements: wireElements }),
    read(answer) {
      const { set } = fromBinary(scs._SetContainsResponseSchema, answer);
      return set.case === 'found' ? set.value.contains : wireElements.map(() => false);
    },
  };
}

export function length(setName: Bytes): Operation<number> {
  return {
    rpc: RPCS.SetLength,
    request: encode(scs._SetLengthRequestSchema, { setName: name(setName) }),
    read(answer) {
      const { set } = fromBinary(scs._SetLengthResponseSchema, answer);
      return set.case === 'found' ? set.value.length : 0;
    },
  };
}

/** Removes up to `count` (at least 1: the server refuses 0) elements chosen at random. */
export function pop(setName: Bytes, count: number): Operation<Uint8Array[]> {
  return {
    rpc: RPCS.SetPop,
    request: encode(scs._SetPopRequestSchema, { setName: name(setName), count: uint32(count, 'count', 1) }),
    read(answer) {
      const { set } = fromBinary(scs._SetPopResponseSchema, answer);
      return set.case === 'found' ? set.value.elements : [];
    },
  };
}

/** Up to `limit` distinct elements chosen at random, left in the set; a limit of 0 answers none. */
export function sample(setName: Bytes, limit: number): Operation<Uint8Array[]> {
  const wireLimit = BigInt(integerIn(limit, 'limit', 0, Number.MAX_SAFE_INTEGER));
  return {
    rpc: RPCS.SetSample,
    request: encode(scs._SetSampleRequestSchema, { setName: name(setName), limit: wireLimit }),
    read(answer) {
      const { set } = fromBinary(scs._SetSampleResponseSchema, answer);
      return set.case === 'found' ? set.value.elements : [];
    },
  };
}
