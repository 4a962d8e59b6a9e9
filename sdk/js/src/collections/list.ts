// Lists: values in order, pushed and popped at either end. Request builders
// and answer readers; CacheClient sends them. A missing list reads as an
// empty one (sdk/spec.json `missing_collection`).
import { fromBinary } from '@bufbuild/protobuf';
import { type Bytes, toBytes } from '../codec.js';
import * as scs from '../gen/cacheclient_pb.js';
import { RPCS } from '../rpcs.gen.js';
import {
  bytesList,
  checkedSlice,
  type CollectionOptions,
  collectionName,
  encode,
  invalid,
  type Operation,
  type Slice,
  UINT32_MAX,
  uint32,
  unbounded,
  type WireTtl,
} from './common.js';

/** A write at the front: after it, values past `truncateBackToSize` are dropped from the back. */
export interface ListPushFrontOptions extends CollectionOptions {
  /** Keep at most this many values (at least 1), dropping from the back in the same atomic step. */
  truncateBackToSize?: number;
}

/** A write at the back: after it, values past `truncateFrontToSize` are dropped from the front. */
export interface ListPushBackOptions extends CollectionOptions {
  /** Keep at most this many values (at least 1), dropping from the front in the same atomic step. */
  truncateFrontToSize?: number;
}

/** listRetain's slice (as listFetch's) and the TTL it may refresh. */
export interface ListRetainOptions extends Slice, CollectionOptions {}

const name = (listName: Bytes): Uint8Array => collectionName(listName, 'list');

// 0 on the wire means "do not truncate", so a size of 0 cannot be asked for.
const truncation = (size: number | undefined, option: string): number => (size === undefined ? 0 : uint32(size, option, 1));

export function pushFront(listName: Bytes, value: Bytes, ttl: WireTtl, options: ListPushFrontOptions): Operation<number> {
  const truncateBackToSize = truncation(options.truncateBackToSize, 'truncateBackToSize');
  return {
    rpc: RPCS.ListPushFront,
    request: encode(scs._ListPushFrontRequestSchema, { listName: name(listName), value: toBytes(value), truncateBackToSize, ...ttl }),
    read: (answer) => fromBinary(scs._ListPushFrontResponseSchema, answer).listLength,
  };
}

export function pushBack(listName: Bytes, value: Bytes, ttl: WireTtl, options: ListPushBackOptions): Operation<number> {
  const truncateFrontToSize = truncation(options.truncateFrontToSize, 'truncateFrontToSize');
  return {
    rpc: RPCS.ListPushBack,
    request: encode(scs._ListPushBackRequestSchema, { listName: name(listName), value: toBytes(value), truncateFrontToSize, ...ttl }),
    read: (answer) => fromBinary(scs._ListPushBackResponseSchema, answer).listLength,
  };
}

export function concatenateFront(
  listName: Bytes,
  values: readonly Bytes[],
  ttl: WireTtl,
  options: ListPushFrontOptions,
): Operation<number> {
  const truncateBackToSize = truncation(options.truncateBackToSize, 'truncateBackToSize');
  const wireValues = bytesList(values, 'values', { nonEmpty: true });
  return {
    rpc: RPCS.ListConcatenateFront,
    request: encode(scs._ListConcatenateFrontRequestSchema, { listName: name(listName), values: wireValues, truncateBackToSize, ...ttl }),
    read: (answer) => fromBinary(scs._ListConcatenateFrontResponseSchema, answer).listLength,
  };
}

export function concatenateBack(
  listName: Bytes,
  values: readonly Bytes[],
  ttl: WireTtl,
  options: ListPushBackOptions,
): Operation<number> {
  const truncateFrontToSize = truncation(options.truncateFrontToSize, 'truncateFrontToSize');
  const wireValues = bytesList(values, 'values', { nonEmpty: true });
  return {
    rpc: RPCS.ListConcatenateBack,
    request: encode(scs._ListConcatenateBackRequestSchema, { listName: name(listName), values: wireValues, truncateFrontToSize, ...ttl }),
    read: (answer) => fromBinary(scs._ListConcatenateBackResponseSchema, answer).listLength,
  };
}

/** The slice's two oneofs, as ListFetch and ListRetain both spell them. */
function sliceToWire(slice: Slice | undefined) {
  const { start, end } = checkedSlice(slice);
  return {
    startIndex:
      start === undefined
        ? { case: 'unboundedStart' as const, value: unbounded() }
        : { case: 'inclusiveStart' as const, value: start },
    endIndex:
      end === undefined ? { case: 'unboundedEnd' as const, value: unbounded() } : { case: 'exclusiveEnd' as const, value: end },
  };
}

export function fetch(listName: Bytes, slice: Slice | undefined): Operation<Uint8Array[]> {
  return {
    rpc: RPCS.ListFetch,
    request: encode(scs._ListFetchRequestSchema, { listName: name(listName), ...sliceToWire(slice) }),
    read(answer) {
      const response = fromBinary(scs._ListFetchResponseSchema, answer);
      // The server answers `missing` also for a slice that selects nothing: both read as [].
      return response.list.case === 'found' ? response.list.value.values : [];
    },
  };
}

export function popFront(listName: Bytes): Operation<Uint8Array | undefined> {
  return {
    rpc: RPCS.ListPopFront,
    request: encode(scs._ListPopFrontRequestSchema, { listName: name(listName) }),
    read(answer) {
      const response = fromBinary(scs._ListPopFrontResponseSchema, answer);
      return response.list.case === 'found' ? response.list.value.front : undefined;
    },
  };
}

export function popBack(listName: Bytes): Operation<Uint8Array | undefined> {
  return {
    rpc: RPCS.ListPopBack,
    request: encode(scs._ListPopBackRequestSchema, { listName: name(listName) }),
    read(answer) {
      const response = fromBinary(scs._ListPopBackResponseSchema, answer);
      return response.list.case === 'found' ? response.list.value.back : undefined;
    },
  };
}

export function removeValue(listName: Bytes, value: Bytes): Operation<number> {
  return {
    rpc: RPCS.ListRemove,
    request: encode(scs._ListRemoveRequestSchema, {
      listName: name(listName),
      remove: { case: 'allElementsWithValue', value: toBytes(value) },
    }),
    read(answer) {
      // The length left; a missing list (or one this call emptied) is 0.
      const { list } = fromBinary(scs._ListRemoveResponseSchema, answer);
      return list.case === 'found' ? list.value.listLength : 0;
    },
  };
}

export function retain(listName: Bytes, ttl: WireTtl, slice: Slice): Operation<number> {
  return {
    rpc: RPCS.ListRetain,
    request: encode(scs._ListRetainRequestSchema, { listName: name(listName), ...sliceToWire(slice), ...ttl }),
    read(answer) {
      // The length left; a missing list (or one this call emptied) is 0.
      const { list } = fromBinary(scs._ListRetainResponseSchema, answer);
      return list.case === 'found' ? list.value.listLength : 0;
    },
  };
}

/**
 * ListErase of the slice [start, end), positions >= 0. The protocol's ranges
 * are `{ beginIndex, count }` from the front, as Python's SDK maps them:
 * no slice at all erases every value (`all`); an open end counts to the
 * uint32 limit (a range may reach past the end). An empty slice (start >=
 * end) erases nothing and sends no ListErase, since the server refuses a
 * range of 0 values; the length left is read with ListLength instead, so
 * the call still resolves to it.
 */
export function erase(listName: Bytes, slice: Slice | undefined): Operation<number> {
  const listNameBytes = name(listName);
  const { start, end } = checkedSlice(slice);
  // Negatives would count from the end, which ListErase cannot say: turning
  // them into positions would need a separate length read, and another
  // writer could change the length between that read and the erase.
  if ((start !== undefined && start < 0) || (end !== undefined && end < 0)) {
    throw invalid(`listErase takes \`start\` and \`end\` >= 0 (positions from the front); got start ${start}, end ${end}. From the back, use listRetain`);
  }
  let request: Uint8Array;
  if (start === undefined && end === undefined) {
    request = encode(scs._ListEraseRequestSchema, { listName: listNameBytes, erase: { case: 'all', value: {} } });
  } else {
    const beginIndex = start ?? 0;
    const count = end === undefined ? UINT32_MAX : end - beginIndex;
    if (count <= 0) return length(listName);
    const ranges = [{ beginIndex, count }];
    request = encode(scs._ListEraseRequestSchema, { listName: listNameBytes, erase: { case: 'some', value: { ranges } } });
  }
  return {
    rpc: RPCS.ListErase,
    request,
    read(answer) {
      // The length left; a missing list (or one this call emptied) is 0.
      const { list } = fromBinary(scs._ListEraseResponseSchema, answer);
      return list.case === 'found' ? list.value.listLength : 0;
    },
  };
}

export function length(listName: Bytes): Operation<number> {
  return {
    rpc: RPCS.ListLength,
    request: encode(scs._ListLengthRequestSchema, { listName: name(listName) }),
    read(answer) {
      const response = fromBinary(scs._ListLengthResponseSchema, answer);
      return response.list.case === 'found' ? response.list.value.length : 0;
    },
  };
}
