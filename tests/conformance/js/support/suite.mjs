// Shared state of one conformance run: the servers, SDK clients on them,
// and helpers every case file uses.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import {
  CacheClient,
  Configurations,
  CreateCache,
  CredentialProvider,
} from '@gomomento/sdk';

import { startJiffyServer } from './jiffy-server.mjs';

export const VALUE_LIMIT_BYTES = 1024 * 1024;
const DEFAULT_TTL_SECONDS = 60;

export class Suite {
  /** @type {Awaited<ReturnType<typeof startJiffyServer>>} */ server;
  /** @type {Awaited<ReturnType<typeof startJiffyServer>>} */ smallLimitServer;
  /** @type {CacheClient} */ client;
  /** @type {CacheClient} */ smallLimitClient;

  async start() {
    this.server = await startJiffyServer();
    this.smallLimitServer = await startJiffyServer(['--max-value-size', '1MiB']);
    this.client = await createClient(this.server);
    this.smallLimitClient = await createClient(this.smallLimitServer);
  }

  async stop() {
    this.client?.close();
    this.smallLimitClient?.close();
    for (const server of [this.server, this.smallLimitServer]) {
      if (!server) continue;
      const code = await server.stop();
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
