// examples/collections.mjs, run as a user would (node, the built package)
// against a real jiffy-server: it must finish and print what the README says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

const run = promisify(execFile);
const EXAMPLE = fileURLToPath(new URL('../../examples/collections.mjs', import.meta.url));

describe('examples', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
  });

  test('collections.mjs prints each data type', async () => {
    const { stdout } = await run(process.execPath, [EXAMPLE], {
      env: { ...process.env, JIFFY_ENDPOINT: server.endpoint },
      timeout: 30_000,
    });
    assert.deepEqual(stdout.trimEnd().split('\n'), [
      "dictionary { name: 'Ada', visits: '2' }",
      "list [ '/docs', '/pricing', '/blog' ] [ '/pricing', '/blog' ]",
      "set [ 'cache', 'grpc', 'rust' ] true",
      "sorted set [ 'bob=32', 'ada=31' ] 0",
      'missing 0 Map(0) {}',
    ]);
  });
});
