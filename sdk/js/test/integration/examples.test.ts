// examples/collections.mjs, run as a user would (node, the built package)
// against a real jiffy-server: it must finish and print what the README says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

const run = promisify(execFile);
const EXAMPLE = fileURLToPath(new URL('../../examples/collections.mjs', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));

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
      'missing 0 BytesMap(0) {}',
    ]);
  });

  test("the README's Protosocket snippet runs, inside the program a user would put it in", async () => {
    const server = await startServer([], { protosocket: true });
    // Inside the package, so that '@jiffy/sdk' resolves to it by name.
    const dir = mkdtempSync(join(PACKAGE, '.readme-'));
    try {
      const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
      const section = readme.split('## Protosocket')[1] ?? '';
      const block = section.split('```js\n')[1]?.split('```')[0];
      assert.ok(block, 'the README has a Protosocket snippet');
      // The default finds the port: the endpoint is the only edit.
      const snippet = block.replace('127.0.0.1:8080', server.endpoint);
      const program = join(dir, 'snippet.mjs');
      const lines = [
        "import { CacheClient } from '@jiffy/sdk';",
        snippet,
        "console.log(await client.getString('demo', 'k'));",
        'client.close();',
      ];
      writeFileSync(program, lines.join('\n'));
      const { stdout } = await run(process.execPath, [program], { timeout: 30_000 });
      assert.deepEqual(stdout.trim().split('\n'), ['protosocket', 'v']);
      const overProtosocket = (await server.metrics())
        .split('\n')
        .filter((line) => line.startsWith('jiffy_requests_total{') && line.includes('rpc="Set"'))
        .some((line) => line.includes('transport="protosocket"') && Number(line.split(' ').at(-1)) > 0);
      assert.ok(overProtosocket, 'the set did not go over protosocket');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.stop();
    }
  });
});
