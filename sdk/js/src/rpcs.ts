// The calls CacheClient makes itself (scalars, cache management, Ping), one
// row each, keyed by RPC method name: where the call goes, whether it waits
// under the in-flight cap, may be sent twice, streams its answer, and which
// transports carry it. The route (route.ts) reads `transports` to choose
// protosocket or gRPC per call; nothing else names a transport per call.
// The collection modules keep their own tables (collections/*.ts).
import type { Rpc } from './call-runner.js';
import { IDEMPOTENT_METHODS } from './retry.js';

export type TransportKind = 'grpc' | 'protosocket';

/** One call's facts. */
export interface RpcRow extends Rpc {
  /** Safe to send twice (retried on UNAVAILABLE / INTERNAL). */
  idempotent: boolean;
  /** The answer is a server stream (GetBatch, SetBatch). */
  streaming: boolean;
  /** What can carry it: gRPC always; protosocket only Get, Set and Delete. */
  transports: readonly TransportKind[];
}

const GRPC: readonly TransportKind[] = ['grpc'];
const EITHER: readonly TransportKind[] = ['grpc', 'protosocket'];

function row(service: string, method: string, cacheCall: boolean, capped: boolean, extra: Partial<RpcRow> = {}): RpcRow {
  return {
    method,
    path: `/${service}/${method}`,
    cacheCall,
    capped,
    idempotent: IDEMPOTENT_METHODS.has(method),
    streaming: false,
    transports: GRPC,
    ...extra,
  };
}

const data = (method: string, extra?: Partial<RpcRow>): RpcRow => row('cache_client.Scs', method, true, true, extra);
const control = (method: string, cacheCall: boolean): RpcRow => row('control_client.ScsControl', method, cacheCall, false);

export const RPCS = {
  Get: data('Get', { transports: EITHER }),
  GetBatch: data('GetBatch', { streaming: true }),
  Set: data('Set', { transports: EITHER }),
  SetBatch: data('SetBatch', { streaming: true }),
  SetIf: data('SetIf'),
  SetIfNotExists: data('SetIfNotExists'),
  Delete: data('Delete', { transports: EITHER }),
  KeysExist: data('KeysExist'),
  Increment: data('Increment'),
  UpdateTtl: data('UpdateTtl'),
  ItemGetTtl: data('ItemGetTtl'),
  ItemGetType: data('ItemGetType'),
  CreateCache: control('CreateCache', false),
  DeleteCache: control('DeleteCache', true),
  ListCaches: control('ListCaches', false),
  FlushCache: control('FlushCache', true),
  // Not capped: a ping measures the server, not the queue in front of it.
  Ping: row('cache_client.Ping', 'Ping', false, false),
} as const satisfies Readonly<Record<string, RpcRow>>;
