// Tokens against a server started with --auth-secret-file: given as `apiKey`,
// read from JIFFY_API_KEY, missing, and without the right; on each transport.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AuthenticationError, CacheClient, PermissionError } from '../../src/index.js';
import { serverBinary, startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';

describe('signed tokens', () => {
  let dir: string;
  let secretFile: string;
  let server: RunningServer;

  /** A token printed by `jiffy-server token create`. */
  const token = (caches: string, role: string): string =>
    execFileSync(serverBinary(), [
      'token', 'create', '--auth-secret-file', secretFile,
      '--caches', caches, '--role', role, '--expires-in', '1h',
    ], { encoding: 'utf8' }).trim();

  /** Runs `body` with these environment variables, then restores them. */
  async function withEnv(vars: Record<string, string | undefined>, body: () => Promise<void>): Promise<void> {
    const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
    const apply = (values: Record<string, string | undefined>): void => {
      for (const [name, value] of Object.entries(values)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    };
    apply(vars);
    try {
      await body();
    } finally {
      apply(saved);
    }
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-auth-'));
    secretFile = join(dir, 'secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    server = await startServer(['--auth-secret-file', secretFile]);
    const admin = await CacheClient.create({ endpoint: server.endpoint, apiKey: token('all', 'admin') });
    try {
      for (const transport of TRANSPORTS) await admin.createCache(`auth-${transport}`);
    } finally {
      admin.close();
    }
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const transport of TRANSPORTS) {
    const cache = `auth-${transport}`;

    test(`${transport}: a token given as apiKey`, async () => {
      const client = await CacheClient.create({ endpoint: server.endpoint, transport, apiKey: token(cache, 'write') });
      try {
        await client.set(cache, 'k', 'from options');
        assert.equal(await client.getString(cache, 'k'), 'from options');
      } finally {
        client.close();
      }
    });

    test(`${transport}: a token from JIFFY_API_KEY`, async () => {
      // Beside JIFFY_ENDPOINT the MOMENTO_* variables are ignored; cleared all the same.
      const env = { JIFFY_ENDPOINT: server.endpoint, JIFFY_API_KEY: token(cache, 'write'), MOMENTO_ENDPOINT: undefined };
      await withEnv(env, async () => {
        const client = await CacheClient.create({ transport });
        try {
          await client.set(cache, 'k', 'from the environment');
          assert.equal(await client.getString(cache, 'k'), 'from the environment');
        } finally {
          client.close();
        }
      });
    });

    test(`${transport}: no token, or a bad one, is an AuthenticationError`, async () => {
      await withEnv({ JIFFY_API_KEY: undefined, MOMENTO_API_KEY: undefined }, async () => {
        for (const apiKey of [undefined, 'not-a-token']) {
          const client = await CacheClient.create({ endpoint: server.endpoint, transport, apiKey });
          try {
            await assert.rejects(client.get(cache, 'k'), AuthenticationError);
          } finally {
            client.close();
          }
        }
      });
    });

    test(`${transport}: a read-only token gets a PermissionError on set`, async () => {
      const client = await CacheClient.create({ endpoint: server.endpoint, transport, apiKey: token(cache, 'read') });
      try {
        assert.equal(await client.get(cache, 'absent'), undefined);
        await assert.rejects(client.set(cache, 'k', 'v'), (err: unknown) => {
          assert.ok(err instanceof PermissionError, String(err));
          assert.match(err.message, /write/);
          return true;
        });
        await assert.rejects(client.createCache('another'), PermissionError);
      } finally {
        client.close();
      }
    });
  }
});
