// What a newcomer meets first: create() that cannot connect says why,
// quickly, and a missing cache names the method (and the CLI command) that
// creates it.
//
// Real sockets throughout: a port nothing listens on, a name under
// `.invalid` (RFC 6761: never resolves), a TLS jiffy-server spoken to in
// plaintext and the reverse. The clients keep the default
// eagerConnectTimeoutMs (10 s): each case must reject well inside 3 s, a
// correctness bound (the grpc-js transport used to wait the whole 10 s, and
// the message said "within 10000 ms" even when it failed in 2), not a benchmark.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CacheClient, type CacheClientOptions, CacheNotFoundError, ConnectionError } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const FAST_MS = 3_000;

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The ConnectionError's message from create(), and the milliseconds it took. */
async function connectFailure(options: CacheClientOptions): Promise<{ message: string; tookMs: number }> {
  const started = Date.now();
  try {
    const client = await CacheClient.create(options);
    client.close();
  } catch (err) {
    assert.ok(err instanceof ConnectionError, `not a ConnectionError: ${String(err)}`);
    return { message: err.message, tookMs: Date.now() - started };
  }
  assert.fail(`create(${JSON.stringify(options)}) connected`);
}

describe('connect failures', () => {
  let dir: string;
  let plain: RunningServer;
  let secure: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-connect-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    plain = await startServer();
    secure = await startServer(['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
  });

  after(async () => {
    await plain?.stop();
    await secure?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: a refused connection rejects in about a second, saying so`, async () => {
      const port = await closedPort();
      const { message, tookMs } = await connectFailure({ endpoint: `127.0.0.1:${port}`, transport });
      assert.match(message, new RegExp(`^cannot connect to 127\\.0\\.0\\.1:${port}: connection refused; `));
      assert.doesNotMatch(message, /within/);
      assert.ok(tookMs < FAST_MS, `took ${tookMs} ms`);
    });

    test(`${transport}: an unknown host rejects at once`, async () => {
      const { message, tookMs } = await connectFailure({ endpoint: 'name.invalid:8080', transport });
      assert.match(message, /^cannot connect to name\.invalid:8080: unknown host 'name\.invalid'; /);
      assert.ok(tookMs < FAST_MS, `took ${tookMs} ms`);
    });

    test(`${transport}: plaintext to a TLS server says to use https://`, async () => {
      const { message, tookMs } = await connectFailure({ endpoint: secure.endpoint, transport });
      assert.ok(message.includes(`the server speaks TLS; use https://${secure.endpoint}`), message);
      assert.ok(tookMs < FAST_MS, `took ${tookMs} ms`);
    });

    test(`${transport}: TLS to a plaintext server says to use http://`, async () => {
      const { message, tookMs } = await connectFailure({ endpoint: `https://${plain.endpoint}`, transport });
      assert.ok(message.includes(`the server speaks plaintext HTTP/2, not TLS; use http://${plain.endpoint}`), message);
      assert.ok(tookMs < FAST_MS, `took ${tookMs} ms`);
    });

    test(`${transport}: an untrusted certificate names tls.caFile`, async () => {
      const { message, tookMs } = await connectFailure({ endpoint: `https://localhost:${secure.port}`, transport });
      assert.match(message, /the server's TLS certificate is not trusted/);
      assert.match(message, /caFile/);
      assert.ok(tookMs < FAST_MS, `took ${tookMs} ms`);
    });

    test(`${transport}: a server that starts within the grace is reached`, async () => {
      const late = await startServer();
      await late.stop();
      const starting = new Promise((resolve) => setTimeout(resolve, 300)).then(() => late.restart());
      try {
        const client = await CacheClient.create({ endpoint: late.endpoint, transport });
        await client.ping();
        client.close();
      } finally {
        await starting;
        await late.stop();
      }
    });

    test(`${transport}: a missing cache names createCache and the CLI command`, async () => {
      const client = await CacheClient.create({ endpoint: plain.endpoint, transport });
      try {
        const missing = await client.get('no-such-cache', 'k').then(
          () => assert.fail('get on a missing cache resolved'),
          (err: unknown) => err,
        );
        assert.ok(missing instanceof CacheNotFoundError);
        assert.ok(missing.message.includes('cache `no-such-cache` does not exist'), missing.message);
        assert.ok(missing.message.includes("create it first with cacheClient.createCache('no-such-cache')"), missing.message);
        assert.ok(missing.message.includes('(CLI: jiffy cache create no-such-cache)'), missing.message);
        assert.ok(!missing.message.includes('CreateCache'), missing.message);
        await assert.rejects(
          client.deleteCache('no-such-cache'),
          (err: unknown) => err instanceof CacheNotFoundError && !err.message.includes('create it first'),
        );
      } finally {
        client.close();
      }
    });
  }
});
