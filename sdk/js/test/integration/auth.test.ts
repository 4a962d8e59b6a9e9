// Tokens against a server started with --auth-secret-file: given as `apiKey`,
// read from JIFFY_API_KEY, missing, and without the right; on each transport.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import {
  type ApiKey,
  AuthenticationError,
  CacheClient,
  type DisposableToken,
  InvalidArgumentError,
  PermissionError,
} from '../../src/index.js';
import { serverBinary, startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

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

  describe('token vending', () => {
    const cache = 'auth-vending';
    /** A client of `apiKey`, closed after `body`. */
    async function withClient(apiKey: string, body: (client: CacheClient) => Promise<void>): Promise<void> {
      const client = await CacheClient.create({ endpoint: server.endpoint, apiKey });
      try {
        await body(client);
      } finally {
        client.close();
      }
    }

    before(async () => {
      await withClient(token('all', 'admin'), (admin) => admin.createCache(cache));
    });

    test('a disposable token scoped to one key: that key, and nothing else', async () => {
      const before = Date.now();
      let minted: DisposableToken | undefined;
      await withClient(token('all', 'admin'), async (admin) => {
        minted = await admin.generateDisposableToken([{ role: 'readWrite', cache, key: 'mine' }], 60_000, { tokenId: 'app' });
      });
      assert.ok(minted !== undefined && minted.endpoint !== '');
      const expiresAt = minted.expiresAt.getTime();
      assert.ok(expiresAt > before && expiresAt <= before + 62_000, minted.expiresAt.toISOString());
      await withClient(minted.token, async (client) => {
        await client.set(cache, 'mine', 'v');
        assert.equal(await client.getString(cache, 'mine'), 'v');
        await assert.rejects(client.set(cache, 'theirs', 'v'), PermissionError);
        // A minted token that is no super user mints nothing.
        await assert.rejects(client.generateDisposableToken('allDataReadWrite', 60_000), PermissionError);
      });
    });

    test('an api key, and its refresh', async () => {
      let key: ApiKey | undefined;
      let forever: ApiKey | undefined;
      await withClient(token('all', 'admin'), async (admin) => {
        forever = await admin.generateApiKey([{ role: 'readOnly' }]);
        key = await admin.generateApiKey('allDataReadWrite', 7_200_000);
      });
      assert.ok(key !== undefined && forever !== undefined);
      assert.equal(forever.validUntil, undefined);
      assert.ok(key.validUntil !== undefined);
      let renewed: ApiKey | undefined;
      await withClient(key.apiKey, async (client) => {
        await client.set(cache, 'k', 'with the api key');
        renewed = await client.refreshApiKey(key!.refreshToken);
        // A refresh token renews a key of its own permissions only.
        await assert.rejects(client.refreshApiKey(forever!.refreshToken), InvalidArgumentError);
      });
      assert.ok(renewed !== undefined && renewed.validUntil !== undefined);
      // (Minted in the same second as the key, the new key may read the same.)
      assert.ok(renewed.validUntil >= key.validUntil);
      await withClient(renewed.apiKey, async (client) => {
        assert.equal(await client.getString(cache, 'k'), 'with the api key');
        // All data read-write is data only: no control plane.
        await assert.rejects(client.createCache(`${cache}-2`), PermissionError);
      });
      await withClient(key.refreshToken, async (client) => {
        await assert.rejects(client.get(cache, 'k'), AuthenticationError);
      });
    });

    test("the README's Minting tokens snippet runs", async () => {
      const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
      const block = (readme.split('## Minting tokens')[1] ?? '').split('```js\n')[1]?.split('```')[0];
      assert.ok(block, 'the README has a Minting tokens snippet');
      await withClient(token('all', 'admin'), (admin) => admin.createCache('game'));
      const program = join(dir, 'snippet.mjs');
      const lines = [
        `import { CacheClient, PermissionError } from ${JSON.stringify(join(PACKAGE, 'src/index.ts'))};`,
        `const adminToken = ${JSON.stringify(token('all', 'admin'))};`,
        block,
      ];
      writeFileSync(program, lines.join('\n').replaceAll('127.0.0.1:8080', server.endpoint));
      const { stdout } = await run(process.execPath, ['--import', 'tsx', program], { cwd: PACKAGE, timeout: 30_000 });
      assert.match(stdout, /^player-8 is out of reach until 20\d\d-/);
      await withClient(token('all', 'admin'), async (admin) => {
        assert.equal(await admin.getString('game', 'player-7'), 'ready');
        assert.equal(await admin.getString('game', 'player-8'), undefined);
      });
    });
  });
});
