// Dictionaries: fields mapped to values under one key. Request builders and
// answer readers; CacheClient sends them. A missing dictionary reads as an
// empty one (sdk/spec.json `missing_collection`).
import { fromBinary } from '@bufbuild/protobuf';
import { BytesMap } from '../bytes-collections.js';
import { type Bytes, int64ToWire, safeNumberFromWire, toBytes } from '../codec.js';
import * as scs from '../gen/cacheclient_pb.js';
import { RPCS } from '../rpcs.gen.js';
import { bytesList, collectionName, encode, type Entries, type Operation, pairsOf, type WireTtl } from './common.js';

/** Fields and values to set: a Map or BytesMap, [field, value] pairs, or a Record (field names as UTF-8). */
export type DictionaryEntries = Entries<Bytes, Bytes>;

const name = (dictionaryName: Bytes): Uint8Array => collectionName(dictionaryName, 'dictionary');

/** The value of each field in order, undefined where absent (all of them for a missing dictionary). */
export function getFields(dictionaryName: Bytes, fields: readonly Bytes[]): Operation<(Uint8Array | undefined)[]> {
  const wireFields = bytesList(fields, 'fields', { nonEmpty: true });
  return {
    rpc: RPCS.DictionaryGet,
    request: encode(scs._DictionaryGetRequestSchema, { dictionaryName: name(dictionaryName), fields: wireFields }),
    read(answer) {
      const response = fromBinary(scs._DictionaryGetResponseSchema, answer);
      if (response.dictionary.case !== 'found') return wireFields.map(() => undefined);
      return response.dictionary.value.items.map((part) => (part.result === scs.ECacheResult.Hit ? part.cacheBody : undefined));
    },
  };
}

/** Every field and value, fields in ascending byte order, field names as bytes. */
export function fetch(dictionaryName: Bytes): Operation<BytesMap<Uint8Array>> {
  return {
    rpc: RPCS.DictionaryFetch,
    request: encode(scs._DictionaryFetchRequestSchema, { dictionaryName: name(dictionaryName) }),
    read(answer) {
      const response = fromBinary(scs._DictionaryFetchResponseSchema, answer);
      const items = response.dictionary.case === 'found' ? [...response.dictionary.value.items] : [];
      // The server answers in its own (hash table's) order, sorting nothing
      // per call; this SDK's map keeps the byte order it promises.
      items.sort((a, b) => Buffer.compare(a.field, b.field));
      return new BytesMap(items.map((item) => [item.field, item.value]));
    },
  };
}

export function setFields(dictionaryName: Bytes, entries: DictionaryEntries, ttl: WireTtl): Operation<void> {
  const items = pairsOf<Bytes, Bytes>(entries, 'dictionary entries').map(([field, value]) => ({
    field: toBytes(field),
    value: toBytes(value),
  }));
  return {
    rpc: RPCS.DictionarySet,
    request: encode(scs._DictionarySetRequestSchema, { dictionaryName: name(dictionaryName), items, ...ttl }),
    read: () => undefined,
  };
}

/** Adds `amount` to the integer a field holds; reads the new value as the amount's type. */
export function increment(dictionaryName: Bytes, field: Bytes, amount: number | bigint, ttl: WireTtl): Operation<number | bigint> {
  return {
    rpc: RPCS.DictionaryIncrement,
    request: encode(scs._DictionaryIncrementRequestSchema, {
      dictionaryName: name(dictionaryName),
      field: toBytes(field),
      amount: int64ToWire(amount, 'amount'),
      ...ttl,
    }),
    read(answer) {
      const { value } = fromBinary(scs._DictionaryIncrementResponseSchema, answer);
      return typeof amount === 'bigint' ? value : safeNumberFromWire(value, 'dictionaryIncrement');
    },
  };
}

export function removeFields(dictionaryName: Bytes, fields: readonly Bytes[]): Operation<void> {
  const some = { fields: bytesList(fields, 'fields', { nonEmpty: true }) };
  return {
    rpc: RPCS.DictionaryDelete,
    request: encode(scs._DictionaryDeleteRequestSchema, { dictionaryName: name(dictionaryName), delete: { case: 'some', value: some } }),
    read: () => undefined,
  };
}

export function length(dictionaryName: Bytes): Operation<number> {
  return {
    rpc: RPCS.DictionaryLength,
    request: encode(scs._DictionaryLengthRequestSchema, { dictionaryName: name(dictionaryName) }),
    read(answer) {
      const response = fromBinary(scs._DictionaryLengthResponseSchema, answer);
      return response.dictionary.case === 'found' ? response.dictionary.value.length : 0;
    },
  };
}
