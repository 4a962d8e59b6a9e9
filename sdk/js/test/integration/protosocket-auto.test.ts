// protosocketEndpoint: 'auto', the default, against real servers: the client
// finds jiffy-server's protosocket port in its Ping answer's headers (over
// either gRPC transport) and sends get, set and delete there; without the
// port, with `null`, or when the port cannot be reached, every call stays on
// gRPC and none fails. The server's metrics count the calls by transport.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { AuthenticationError, CacheClient, type CacheClientOptions } from '../../src/index.js';
import { MAX_PROTOSOCKET_VALUE_BYTES } from '../../src/protosocket-calls.js';
import { serverBinary, startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

/** Get, Set and Delete answered so far over `transport` ('grpc' or 'protosocket'). */
async function answered(server: RunningServer, transport: string): Promise<number> {
  let total = 0;
  for (const line of (await server.metrics()).split('\n')) {
    if (!line.startsWith('jiffy_requests_total{') || !line.includes(`transport="${transport}"`)) continue;
    if (/rpc="(Get|Set|Delete)"/.test(line)) total += Number(line.split(' ').at(-1));
  }
  return total;
}

/** How many Get, Set and Delete calls each transport answered while `body` ran. */
async function countedDuring(server: RunningServer, body: () => Promise<void>): Promise<{ protosocket: number; grpc: number }> {
  const before = { protosocket: await answered(server, 'protosocket'), grpc: await answered(server, 'grpc') };
  await body();
  return { protosocket: (await answered(server, 'protosocket')) - before.protosocket, grpc: (await answered(server, 'grpc')) - before.grpc };
}

async function setGetDelete(client: CacheClient, cache: string): Promise<void> {
  await client.set(cache, 'k', 'v');
  assert.equal(await client.getString(cache, 'k'), 'v');
  await client.delete(cache, 'k');
  assert.equal(await client.get(cache, 'k'), undefined);
}

/** The JiffyWarnings the process emits while `body` runs. */
async function warningsDuring(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (warning: Error): void => {
    if (warning.name === 'JiffyWarning') seen.push(warning.message);
  };
  process.on('warning', listener);
  try {
    await body();
    await tick(); // emitWarning delivers on the next tick
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

/**
 * A TCP forwarder on 127.0.0.2 to one port of 127.0.0.1: a client reaching
 * the server's gRPC port through it finds the advertised protosocket port
 * closed on 127.0.0.2, as behind a proxy or NAT that forwards one port.
 */
async function forwardTo(port: number): Promise<net.Server> {
  const forwarder = net.createServer((inbound) => {
    const outbound = net.connect(port, '127.0.0.1');
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.2', resolve));
  return forwarder;
}

describe("protosocketEndpoint 'auto'", () => {
  let withPort: RunningServer;
  let withoutPort: RunningServer;
  const cache = 'auto';

  before(async () => {
    [withPort, withoutPort] = await Promise.all([startServer([], { protosocket: true }), startServer()]);
    for (const server of [withPort, withoutPort]) {
      const admin = await CacheClient.create({ endpoint: server.endpoint });
      await admin.createCache(cache);
      admin.close();
    }
  });

  after(async () => {
    await Promise.all([withPort?.stop(), withoutPort?.stop()]);
  });

  const create = (server: RunningServer, options: CacheClientOptions = {}): Promise<CacheClient> =>
    CacheClient.create({ endpoint: server.endpoint, ...options });

  for (const transport of TRANSPORTS) {
    test(`the default finds the port over ${transport} and sends get, set and delete there`, async () => {
      const client = await create(withPort, { transport });
      try {
        assert.equal(client.transport, 'protosocket');
        const counted = await countedDuring(withPort, async () => {
          await setGetDelete(client, cache);
          assert.equal(await client.increment(cache, `n-${transport}`), 1); // gRPC: protosocket carries no Increment
        });
        assert.deepEqual(counted, { protosocket: 4, grpc: 0 });
      } finally {
        client.close();
      }
    });
  }

  test('a server without the port is spoken to over gRPC', async () => {
    const client = await create(withoutPort);
    try {
      assert.equal(client.transport, 'grpc');
      assert.deepEqual(await countedDuring(withoutPort, () => setGetDelete(client, cache)), { protosocket: 0, grpc: 4 });
    } finally {
      client.close();
    }
  });

  test('null keeps every call on gRPC, the port on or not', async () => {
    const client = await create(withPort, { protosocketEndpoint: null });
    try {
      assert.equal(client.transport, 'grpc');
      assert.deepEqual(await countedDuring(withPort, () => setGetDelete(client, cache)), { protosocket: 0, grpc: 4 });
    } finally {
      client.close();
    }
  });

  test('a port out of reach: one warning naming the cause, then every call over gRPC', async () => {
    const forwarder = await forwardTo(withPort.port);
    const port = (forwarder.address() as net.AddressInfo).port;
    let client: CacheClient | undefined;
    try {
      const warnings = await warningsDuring(async () => {
        client = await CacheClient.create({ endpoint: `127.0.0.2:${port}`, channels: 2 });
      });
      const closed = `127.0.0.2:${withPort.protosocketEndpoint!.split(':')[1]}`;
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0]!, new RegExp(`cannot connect to ${closed.replace(/\./g, '\\.')}: connection refused`));
      assert.match(warnings[0]!, /stay on gRPC/);
      assert.equal(client!.transport, 'grpc');
      assert.deepEqual(await countedDuring(withPort, () => setGetDelete(client!, cache)), { protosocket: 0, grpc: 4 });
    } finally {
      client?.close();
      forwarder.close();
    }
  });

  test('a lazy client asks at its first get, set or delete, which waits for the answer', async () => {
    const lazy = await create(withPort, { eagerConnectTimeoutMs: 0 });
    try {
      assert.equal(lazy.transport, 'grpc', 'nothing asked yet');
      const counted = await countedDuring(withPort, async () => {
        await Promise.all([lazy.set(cache, 'a', '1'), lazy.set(cache, 'b', '2')]);
        assert.equal(lazy.transport, 'protosocket');
        assert.equal(await lazy.getString(cache, 'a'), '1');
      });
      assert.deepEqual(counted, { protosocket: 3, grpc: 0 });
    } finally {
      lazy.close();
    }
  });

  test('values protosocket cannot carry go over gRPC', async () => {
    const client = await create(withPort);
    const over = Buffer.alloc(MAX_PROTOSOCKET_VALUE_BYTES + 1, 7);
    try {
      assert.equal(client.transport, 'protosocket');
      const counted = await countedDuring(withPort, async () => {
        await client.set(cache, 'over', over);
        assert.deepEqual(await client.get(cache, 'over'), over); // refused over protosocket, read over gRPC
      });
      assert.deepEqual(counted, { protosocket: 1, grpc: 2 });
    } finally {
      client.close();
    }
  });
});

describe("protosocketEndpoint 'auto' with TLS and auth", () => {
  const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';
  let dir: string;
  let server: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-ps-auto-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=jiffy-test',
      '-addext', 'subjectAltName=DNS:jiffy-test,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    writeFileSync(join(dir, 'secret'), `${SECRET}\n`);
    const tls = ['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')];
    server = await startServer([...tls, '--auth-secret-file', join(dir, 'secret')], { protosocket: true });
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the port is found and opened with the same CA and API key', async () => {
    const apiKey = execFileSync(serverBinary(), [
      'token', 'create', '--auth-secret-file', join(dir, 'secret'), '--caches', 'all', '--role', 'admin', '--expires-in', '1h',
    ], { encoding: 'utf8' }).trim();
    const client = await CacheClient.create({ endpoint: server.endpoint, tls: { caFile: join(dir, 'cert.pem') }, apiKey });
    try {
      assert.equal(client.transport, 'protosocket');
      await client.createCache('tls-auto');
      assert.deepEqual(await countedDuring(server, () => setGetDelete(client, 'tls-auto')), { protosocket: 4, grpc: 0 });
    } finally {
      client.close();
    }
    // A bad key: the Ping is refused, so no protosocket; create() still
    // succeeds and the calls fail as they would over gRPC.
    const refused = await CacheClient.create({ endpoint: server.endpoint, tls: { caFile: join(dir, 'cert.pem') }, apiKey: 'not-a-token' });
    try {
      assert.equal(refused.transport, 'grpc');
      await assert.rejects(refused.get('tls-auto', 'k'), AuthenticationError);
    } finally {
      refused.close();
    }
  });
});
