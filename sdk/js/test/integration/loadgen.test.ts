// The built load generator (dist/loadgen.js) prints the JSON of LOADGEN.md.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const LOADGEN = fileURLToPath(new URL('../../dist/loadgen.js', import.meta.url));
const run = promisify(execFile);

const PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'max'];

function assertPercentiles(value: unknown, where: string): void {
  assert.deepEqual(Object.keys(value as object).sort(), [...PERCENTILES].sort(), where);
  for (const name of PERCENTILES) {
    const ms = (value as Record<string, number>)[name]!;
    assert.ok(typeof ms === 'number' && ms > 0, `${where}.${name} = ${ms}`);
  }
}

describe('loadgen --json', () => {
  let server: RunningServer;

  before(async () => {
    assert.ok(existsSync(LOADGEN), `${LOADGEN} is missing: run \`npm run build\` first`);
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
  });

  for (const transport of TRANSPORTS) {
    test(`a 1-second run over ${transport} prints one object with every field`, async () => {
      const args = ['--endpoint', server.endpoint, '--duration', '1', '--warmup', '0.2', '--concurrency', '8',
        '--channels', '2', '--max-concurrent-requests', '4', '--value-size', '32', '--keyspace', '50',
        '--get-ratio', '0.7', '--transport', transport, '--json'];
      const { stdout } = await run(process.execPath, [LOADGEN, ...args]);
      const lines = stdout.trim().split('\n');
      assert.equal(lines.length, 1, 'exactly one line on stdout');
      const report = JSON.parse(lines[0]!) as Record<string, unknown>;
      assert.deepEqual(Object.keys(report).sort(), [
        'client_cpu_percent', 'config', 'connections', 'errors', 'latency_ms', 'latency_ms_by_op', 'requests', 'rps',
        'runtime', 'sdk', 'sdk_version',
      ]);
      assert.equal(report.sdk, 'jiffy-js');
      assert.deepEqual(report.config, {
        concurrency: 8, rate: 0, channels: 2, max_concurrent_requests: 4, preset: 'in_region', duration_s: 1,
        warmup_s: 0.2, value_size: 32, keyspace: 50, get_ratio: 0.7, transport,
      });
      assert.ok((report.requests as number) > 0);
      assert.ok((report.rps as number) > 0);
      assert.deepEqual(report.errors, {});
      assertPercentiles(report.latency_ms, 'latency_ms');
      const byOp = report.latency_ms_by_op as Record<string, unknown>;
      assertPercentiles(byOp.get, 'get');
      assertPercentiles(byOp.set, 'set');
      assert.equal(report.connections, 2);
      assert.ok((report.client_cpu_percent as number) > 0);
    });
  }

  test('open loop and bad flags', async () => {
    const { stdout } = await run(process.execPath, [LOADGEN, '--endpoint', server.endpoint, '--duration', '1',
      '--warmup', '0', '--rate', '200', '--json']);
    const report = JSON.parse(stdout) as { rps: number; config: { rate: number } };
    assert.equal(report.config.rate, 200);
    assert.ok(report.rps > 100 && report.rps < 300, `rps ${report.rps} at --rate 200`);
    await assert.rejects(run(process.execPath, [LOADGEN, '--concurrency', 'many']), (err: { code: number; stderr: string }) =>
      err.code === 2 && /--concurrency/.test(err.stderr));
  });
});
