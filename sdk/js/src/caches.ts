// Cache management (the control service) and Ping: request builders and
// answer readers, as scalars.ts's; CacheClient hands them to the route.
import { fromBinary } from '@bufbuild/protobuf';
import { encode, type Operation } from './collections/common.js';
import { _PingRequestSchema } from './gen/cacheping_pb.js';
import * as control from './gen/controlclient_pb.js';
import { RPCS } from './rpcs.gen.js';

const done = (): void => undefined;

export function createCache(cacheName: string): Operation<void> {
  return { rpc: RPCS.CreateCache, request: encode(control._CreateCacheRequestSchema, { cacheName }), read: done };
}

export function deleteCache(cacheName: string): Operation<void> {
  return { rpc: RPCS.DeleteCache, request: encode(control._DeleteCacheRequestSchema, { cacheName }), read: done };
}

export function flushCache(cacheName: string): Operation<void> {
  return { rpc: RPCS.FlushCache, request: encode(control._FlushCacheRequestSchema, { cacheName }), read: done };
}

/** One page of cache names; `nextToken` is '' after the last. */
export function listCachesPage(nextToken: string): Operation<{ names: string[]; nextToken: string }> {
  return {
    rpc: RPCS.ListCaches,
    request: encode(control._ListCachesRequestSchema, { nextToken }),
    read(answer) {
      const response = fromBinary(control._ListCachesResponseSchema, answer);
      return { names: response.cache.map((cache) => cache.cacheName), nextToken: response.nextToken };
    },
  };
}

export function ping(): Operation<void> {
  return { rpc: RPCS.Ping, request: encode(_PingRequestSchema, {}), read: done };
}
