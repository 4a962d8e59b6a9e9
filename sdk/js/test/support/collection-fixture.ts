// What the collection suites share: a jiffy-server with small limits (so a
// test can reach them with a few elements), a client on one transport, one
// cache, and helpers to read answers as text.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { CacheClient, type TransportName } from '../../src/index.js';
import { startServer, type RunningServer } from './jiffy-server.js';

export const LIMITS = {
  /** --max-value-size: a field, value or element one byte longer is refused. */
  valueBytes: 64,
  /** --max-request-items: elements in one collection call. */
  requestItems: 20,
  /** --max-collection-elements: elements one collection may hold. */
  collectionElements: 30,
} as const;

/** TTLs the suites write: a collection's TTL is told apart by which one it has left. */
export const TTL = { short: 60_000, long: 600_000 } as const;

export interface Fixture {
  readonly client: CacheClient;
  readonly cache: string;
}

/** Starts a server and a client for the enclosing describe(); stops both after it. */
export function useServer(transport: TransportName): Fixture {
  let server: RunningServer | undefined;
  let client: CacheClient | undefined;
  before(async () => {
    server = await startServer([
      '--max-value-size',
      `${LIMITS.valueBytes}B`,
      '--max-request-items',
      String(LIMITS.requestItems),
      '--max-collection-elements',
      String(LIMITS.collectionElements),
      '--max-ttl',
      '1h',
    ]);
    client = await CacheClient.create({ endpoint: server.endpoint, transport, channels: 1 });
    await client.createCache('collections');
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });
  return {
    get client(): CacheClient {
      assert.ok(client, 'the server fixture has not started');
      return client;
    },
    cache: 'collections',
  };
}

export const text = (value: Uint8Array | undefined): string | undefined =>
  value === undefined ? undefined : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');

export const texts = (values: readonly (Uint8Array | undefined)[]): (string | undefined)[] => values.map(text);

/** Milliseconds `key` has left; fails the test for a missing key. */
export async function ttlLeft(fixture: Fixture, key: string): Promise<number> {
  const left = await fixture.client.getTtl(fixture.cache, key);
  assert.ok(left !== undefined, `${key} has no TTL: it is missing`);
  return left;
}

/**
 * Checks the collection TTL contract on `key`: `create` makes it with the
 * short TTL, `write(options)` is a write of the same collection. Without
 * refresh the short TTL stays; with refresh (the default) it becomes long.
 */
export async function checkCollectionTtl(
  fixture: Fixture,
  key: string,
  create: (options: { ttlMs: number }) => Promise<unknown>,
  write: (options: { ttlMs: number; refreshTtl?: boolean }) => Promise<unknown>,
): Promise<void> {
  await create({ ttlMs: TTL.short });
  assert.ok((await ttlLeft(fixture, key)) <= TTL.short, 'a new collection takes the TTL given');
  await write({ ttlMs: TTL.long, refreshTtl: false });
  assert.ok((await ttlLeft(fixture, key)) <= TTL.short, 'refreshTtl: false keeps the TTL');
  await write({ ttlMs: TTL.long });
  assert.ok((await ttlLeft(fixture, key)) > TTL.short, 'refreshTtl defaults to true: the TTL is reset');
}
