// @jiffy/sdk/testing against real servers: startTestServer() from
// $JIFFY_SERVER_BIN, from PATH and from a checkout's build, its errors, and the README's test file run
// by `node --test` through the package's "./testing" export.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { CacheClient } from '../../src/index.js';
import { findServerBinary, startTestServer } from '../../src/testing.js';
import { serverBinary } from '../support/jiffy-server.js';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const BINARY = resolve(serverBinary());

/** Whether a TCP connect to host:port is refused (nothing listens). */
async function refuses(endpoint: string): Promise<boolean> {
  const [host, port] = endpoint.split(':');
  return new Promise((done) => {
    const socket = connect(Number(port), host);
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}

/** Whether host:port refuses connections within `withinMs` (a SIGKILL lands a moment after it is sent). */
async function refusesSoon(endpoint: string, withinMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!(await refuses(endpoint))) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('startTestServer', () => {
  let scratch: string;

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'jiffy-testing-'));
  });

  after(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  test('serves a client, then stop() ends it', async () => {
    const server = await startTestServer({ binary: BINARY });
    assert.match(server.endpoint, /^127\.0\.0\.1:\d+$/);
    assert.equal(server.endpoint, `${server.host}:${server.port}`);
    const client = await CacheClient.create({ endpoint: server.endpoint });
    try {
      await client.createCache('c');
      await client.set('c', 'k', 'v');
      assert.equal(await client.getString('c', 'k'), 'v');
    } finally {
      client.close();
    }
    await server.stop();
    assert.equal(await refuses(server.endpoint), true);
    await server.stop(); // a second stop is harmless
  });

  test('finds jiffy-server on PATH when JIFFY_SERVER_BIN is unset', async () => {
    const bin = join(scratch, 'bin');
    const empty = join(scratch, 'empty');
    mkdirSync(bin);
    mkdirSync(empty);
    symlinkSync(BINARY, join(bin, 'jiffy-server'));
    const path = [empty, bin].join(delimiter);
    assert.equal(findServerBinary({ PATH: path }), join(bin, 'jiffy-server'));
    // startTestServer() with no binary looks up the process's own environment.
    const saved = { bin: process.env.JIFFY_SERVER_BIN, path: process.env.PATH };
    delete process.env.JIFFY_SERVER_BIN;
    process.env.PATH = path;
    let server;
    try {
      server = await startTestServer();
    } finally {
      process.env.PATH = saved.path;
      if (saved.bin !== undefined) process.env.JIFFY_SERVER_BIN = saved.bin;
    }
    const client = await CacheClient.create({ endpoint: server.endpoint });
    try {
      await client.createCache('found-on-path');
    } finally {
      client.close();
      await server.stop();
    }
  });

  test('without a binary, the error says how to build one, and no pip', () => {
    assert.throws(() => findServerBinary({ PATH: scratch }, scratch), (err: Error) => {
      assert.ok(
        err.message.startsWith(
          'jiffy-server not found: JIFFY_SERVER_BIN is unset, jiffy-server is not on PATH, and there is no ' +
            `target/release/jiffy-server in ${scratch} or above. Build it in a jiffy checkout with ` +
            '`cargo build --release -p jiffy-server`',
        ),
        err.message,
      );
      assert.doesNotMatch(err.message, /pip/);
      return true;
    });
  });

  test("finds the checkout's target/release/jiffy-server from inside the checkout", () => {
    const checkout = join(scratch, 'checkout');
    const build = join(checkout, 'target', 'release', 'jiffy-server');
    const inside = join(checkout, 'sdk', 'js');
    mkdirSync(join(checkout, 'target', 'release'), { recursive: true });
    mkdirSync(inside, { recursive: true });
    symlinkSync(BINARY, build);
    assert.equal(findServerBinary({ PATH: scratch }, inside), build);
  });

  test('JIFFY_SERVER_BIN that is not an executable file is named', () => {
    const missing = join(scratch, 'nothing-here');
    assert.throws(() => findServerBinary({ JIFFY_SERVER_BIN: missing }), {
      message: `JIFFY_SERVER_BIN is '${missing}', which is not an executable file`,
    });
  });

  test('a server that cannot start rejects with its exit status and log', async () => {
    await assert.rejects(startTestServer({ binary: BINARY, args: ['--max-memory', 'lots'] }), (err: Error) => {
      assert.match(err.message, /^jiffy-server did not start: exited with status 2\n/);
      assert.match(err.message, /--max-memory lots/);
      assert.match(err.message, /its log ends:\nerror: invalid value 'lots' for '--max-memory/);
      return true;
    });
  });
});

describe('@jiffy/sdk/testing as users import it', () => {
  const readmes = [
    { readme: join(PACKAGE_DIR, 'README.md'), heading: '## Testing your code' },
    { readme: join(PACKAGE_DIR, '../../docs/SDKS.md'), heading: '## Throwaway servers in your tests' },
  ];
  for (const { readme, heading } of readmes) {
    test(`the test file of "${heading}" passes under node --test`, async () => {
      const section = readFileSync(readme, 'utf8').split(`${heading}\n`)[1]?.split(/^#{2,3} /m)[0] ?? '';
      const snippet = /^```js\n(.*?)^```/ms.exec(section)?.[1];
      assert.ok(snippet, `no js block under "${heading}" in ${readme}`);
      // Inside the package, so that '@jiffy/sdk' resolves to it (self-reference).
      const file = join(PACKAGE_DIR, `.readme-testing-${process.pid}.test.mjs`);
      writeFileSync(file, snippet);
      try {
        // A run of its own: without NODE_TEST_CONTEXT, which would make it
        // report to this runner instead of printing its summary.
        const { NODE_TEST_CONTEXT: _, ...env } = process.env;
        const { stdout } = await run(process.execPath, ['--test', file], {
          cwd: PACKAGE_DIR,
          env: { ...env, JIFFY_SERVER_BIN: BINARY },
          timeout: 60_000,
        });
        assert.match(stdout, /^# pass 1$/m);
        assert.match(stdout, /^# fail 0$/m);
      } finally {
        rmSync(file, { force: true });
      }
    });
  }

  test('a script that never calls stop() still exits, and takes the server with it', async () => {
    const script = "const s = await (await import('@jiffy/sdk/testing')).startTestServer(); console.log(s.endpoint);";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, JIFFY_SERVER_BIN: BINARY },
      timeout: 30_000,
    });
    assert.equal(await refusesSoon(stdout.trim()), true);
  });

  test('require() gets the CommonJS build', async () => {
    const { stdout } = await run(
      process.execPath,
      ['-e', "const t = require('@jiffy/sdk/testing'); console.log(typeof t.startTestServer, typeof t.findServerBinary)"],
      { cwd: PACKAGE_DIR },
    );
    assert.equal(stdout.trim(), 'function function');
  });
});
