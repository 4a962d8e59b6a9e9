// Shared state of one conformance run: the store, the servers, SDK clients
// on them, and helpers every case file uses.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import {
  CacheClient,
  CollectionTtl,
  Configurations,
  CreateCache,
  CredentialProvider,
} from '@gomomento/sdk';

import { startJiffyServer } from './jiffy-server.mjs';
import { roundRobin } from './round-robin.mjs';
import { startStore } from './shared-store.mjs';

export const VALUE_LIMIT_BYTES = 1024 * 1024;
const DEFAULT_TTL_SECONDS = 60;

export class Suite {
  /** @type {Awaited<ReturnType<typeof startStore>>} */ store;
  /** @type {Awaited<ReturnType<typeof startJiffyServer>>[]} */ frontEnds = [];
  /** @type {Awaited<ReturnType<typeof startJiffyServer>>[]} */ smallLimitFrontEnds = [];
  /** @type {Awaited<ReturnType<typeof startJiffyServer>>} */ server;
  /** @type {Awaited<ReturnType<typeof startJiffyServer>>} */ smallLimitServer;
  /** One per front-end. @type {CacheClient[]} */ clients = [];
  /** One per small-limit front-end. @type {CacheClient[]} */ smallLimitClients = [];
  /** Each call on the next front-end in turn (round-robin.mjs). @type {CacheClient} */ client;
  /** @type {CacheClient} */ smallLimitClient;

  async start() {
    this.store = await startStore();
    // Metrics only over a shared store: they show the spread of calls.
    const metrics = this.store.shared ? ['--metrics-listen', '127.0.0.1:0'] : [];
    // Each test makes caches of its own and the run keeps them: over a shared
    // store all front-ends count them against one cluster-wide --max-caches,
    // whose default (100) the whole suite outgrows.
    const args = [...this.store.args, ...metrics, '--max-caches', '1000'];
    await this.#startFrontEnds(this.frontEnds, this.clients, args);
    await this.#startFrontEnds(this.smallLimitFrontEnds, this.smallLimitClients, [
      ...args,
      '--max-value-size',
      '1MiB',
    ]);
    [this.server] = this.frontEnds;
    [this.smallLimitServer] = this.smallLimitFrontEnds;
    this.client = roundRobin(this.clients);
    this.smallLimitClient = roundRobin(this.smallLimitClients);
  }

  // Fills the given arrays as it goes, so that stop() finds whatever started.
  async #startFrontEnds(servers, clients, args) {
    for (let i = 0; i < this.store.frontEnds; i++) {
      const server = await startJiffyServer(args);
      servers.push(server);
      clients.push(await createClient(server));
    }
  }

  async stop() {
    for (const client of [...this.clients, ...this.smallLimitClients]) client.close();
    const exits = [];
    try {
      for (const server of [...this.frontEnds, ...this.smallLimitFrontEnds]) {
        exits.push({ server, code: await server.stop() });
      }
    } finally {
      await this.store?.stop();
    }
    for (const { server, code } of exits) {
      // SIGTERM is the documented way to stop; a crash on it is a bug too.
      assert.equal(code, 0, `jiffy-server exited with ${code}; stderr:\n${server.stderr()}`);
    }
  }

  /** Creates a cache with a name no other test uses. */
  async newCache(label) {
    const name = uniqueCacheName(label);
    assertIs(await this.client.createCache(name), CreateCache.Success);
    return name;
  }
}

export function createClient({ host, port }) {
  return CacheClient.create({
    configuration: Configurations.Laptop.latest(),
    credentialProvider: CredentialProvider.forMomentoLocal({ hostname: host, port }),
    defaultTtlSeconds: DEFAULT_TTL_SECONDS,
  });
}

export function uniqueCacheName(label) {
  return `js-${label}-${randomUUID().slice(0, 8)}`;
}

/** Asserts that an SDK response is of the given class, showing it otherwise. */
export function assertIs(response, responseClass) {
  assert.ok(
    response instanceof responseClass,
    `expected ${responseClass.name}, got ${response?.constructor?.name}: ${response}`,
  );
  return response;
}

export function sleep(ms) {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

/**
 * Writes 'one', 'two' and 'three' a second apart to two collections under a 5 s TTL, the first
 * write of each with refreshTtl off (`kept`) and the other with it on (`refreshed`), then waits
 * until the unrefreshed TTL has surely passed. A slow machine stretches the gaps between writes,
 * so the margins are seconds: `refreshed` outlives its last write by about 3 s, `kept` is gone.
 * @param {(value: string, ttl: CollectionTtl) => Promise<unknown>} writeKept
 * @param {(value: string, ttl: CollectionTtl) => Promise<unknown>} writeRefreshed
 */
export async function writeKeptAndRefreshed(writeKept, writeRefreshed) {
  const ttlSeconds = 5;
  const started = Date.now();
  for (const value of ['one', 'two', 'three']) {
    await writeKept(value, new CollectionTtl(ttlSeconds, false));
    await writeRefreshed(value, new CollectionTtl(ttlSeconds, true));
    await sleep(1000);
  }
  await sleep(Math.max(0, ttlSeconds * 1000 + 300 - (Date.now() - started)));
}
