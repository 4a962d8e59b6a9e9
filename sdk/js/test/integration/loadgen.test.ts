// The built load generator (dist/loadgen.js) prints the JSON of docs/LOADGEN.md.
// Every report is checked against docs/loadgen-report.schema.json, the
// contract the Python loadgen and jiffy-tune share: a field renamed, dropped
// or added here without the schema (and the doc) fails.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ADAPTIVE } from '../../src/adaptive-limit.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const LOADGEN = fileURLToPath(new URL('../../dist/loadgen.js', import.meta.url));
const run = promisify(execFile);

const PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'max'];

const SCHEMA_PATH = fileURLToPath(new URL('../../../../docs/loadgen-report.schema.json', import.meta.url));
const validateReport = new Ajv2020({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object,
);

/** What the schema finds wrong with `report`, one line per problem. */
function schemaErrors(report: unknown): string[] {
  if (validateReport(report)) return [];
  return (validateReport.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}

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
      assert.deepEqual(schemaErrors(report), []);
      assert.deepEqual(Object.keys(report).sort(), [
        'client_cpu_percent', 'config', 'connections', 'errors', 'in_flight_limit', 'latency_ms', 'latency_ms_by_op',
        'requests', 'rps', 'runtime', 'sdk', 'sdk_version',
      ]);
      assert.equal(report.sdk, 'jiffy-js');
      assert.deepEqual(report.config, {
        concurrency: 8, rate: 0, channels: 2, max_concurrent_requests: 4, preset: 'in_region', duration_s: 1,
        warmup_s: 0.2, value_size: 32, keyspace: 50, get_ratio: 0.7, workload: 'scalar', transport,
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
      // The fixed cap, sampled every 0.1 s from the start of the warm-up.
      const limits = report.in_flight_limit as [number, number][];
      assert.deepEqual([...new Set(limits.map(([, limit]) => limit))], [4]);
      assert.ok(limits[0]![0] < 0.05 && limits.at(-1)![0] >= 1, JSON.stringify(limits));
    });
  }

  // auto (the default, so not given) finds the port through the server's Ping.
  for (const [transport, carriedBy] of [['protosocket', 'protosocket'], ['auto', 'protosocket'], ['http2', 'http2']] as const) {
    test(`--transport ${transport} on a server with a protosocket port: gets and sets over ${carriedBy}`, async () => {
      const ps = await startServer([], { protosocket: true });
      try {
        const chosen = transport === 'auto' ? [] : ['--transport', transport];
        const forced = transport === 'protosocket' ? ['--protosocket-endpoint', ps.protosocketEndpoint!] : [];
        const { stdout } = await run(process.execPath, [LOADGEN, '--endpoint', ps.endpoint, '--duration', '1', '--warmup', '0.2',
          '--concurrency', '8', ...chosen, ...forced, '--json']);
        const report = JSON.parse(stdout) as { errors: object; requests: number; runtime: string; connections: number; config: { transport: string } };
        assert.deepEqual(schemaErrors(report), []);
        assert.equal(report.config.transport, carriedBy);
        assert.match(report.runtime, new RegExp(` transport=${carriedBy}$`));
        assert.deepEqual(report.errors, {});
        const protosocket = carriedBy === 'protosocket';
        assert.equal(report.connections, protosocket ? 2 : 1, 'one gRPC channel (createCache), and one protosocket connection');
        const metrics = await ps.metrics();
        const count = (rpc: string, wire: string): number => metrics.split('\n')
          .filter((line) => line.startsWith('jiffy_requests_total{') && line.includes(`rpc="${rpc}"`) && line.includes(`transport="${wire}"`))
          .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
        const [used, unused] = protosocket ? ['protosocket', 'grpc'] : ['grpc', 'protosocket'];
        assert.ok(count('Get', used) + count('Set', used) >= report.requests);
        assert.equal(count('Get', unused) + count('Set', unused), 0);
      } finally {
        await ps.stop();
      }
    });
  }

  test('--transport protosocket and --protosocket-endpoint go together', async () => {
    for (const [args, message] of [
      [['--transport', 'protosocket'], /--transport protosocket needs --protosocket-endpoint/],
      [['--protosocket-endpoint', '127.0.0.1:1'], /--protosocket-endpoint goes with --transport protosocket/],
    ] as const) {
      await assert.rejects(run(process.execPath, [LOADGEN, ...args]), (err: { code: number; stderr: string }) =>
        err.code === 2 && message.test(err.stderr));
    }
  });

  test('--max-concurrent-requests auto', async () => {
    const { stdout } = await run(process.execPath, [LOADGEN, '--endpoint', server.endpoint, '--duration', '1',
      '--warmup', '0.2', '--concurrency', '32', '--max-concurrent-requests', 'auto', '--json']);
    const report = JSON.parse(stdout) as { errors: object; config: { max_concurrent_requests: unknown }; in_flight_limit: [number, number][] };
    assert.deepEqual(schemaErrors(report), []);
    assert.equal(report.config.max_concurrent_requests, 'auto');
    assert.deepEqual(report.errors, {});
    const limits = report.in_flight_limit.map(([, limit]) => limit);
    assert.equal(limits[0], ADAPTIVE.initialLimit);
    assert.ok(limits.every((limit) => limit >= ADAPTIVE.minLimit && limit <= ADAPTIVE.streamsPerConnection));
    assert.ok(Math.max(...limits) > ADAPTIVE.initialLimit, 'with 32 callers it rose');
  });

  test('--delay-ms holds every call', async () => {
    const slowed = await startServer(['--enable-fault-injection']);
    try {
      const { stdout } = await run(process.execPath, [LOADGEN, '--endpoint', slowed.endpoint, '--duration', '1',
        '--warmup', '0.2', '--concurrency', '4', '--delay-ms', '5', '--json']);
      const report = JSON.parse(stdout) as { errors: object; config: { delay_ms?: number }; latency_ms: { p50: number } };
      assert.deepEqual(schemaErrors(report), []);
      assert.equal(report.config.delay_ms, 5);
      assert.ok(report.latency_ms.p50 >= 5, `p50 ${report.latency_ms.p50}`);
      assert.deepEqual(report.errors, {});
    } finally {
      await slowed.stop();
    }
  });

  test('auto and --delay-ms are refused by a driver without them', async () => {
    const { runLoadgenCli } = await import('../../src/loadgen/index.js');
    /** What runLoadgenCli writes on stderr for `argv` with a driver of a fixed cap that sends no extra headers. */
    async function refusal(argv: string[]): Promise<string> {
      let closed = false;
      const code = process.exitCode;
      const written: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string) => written.push(chunk) > 0);
      try {
        const report = await runLoadgenCli([...argv, '--json'], () =>
          Promise.resolve({
            sdk: 'plain', sdkVersion: '0', runtime: 'node', get: () => Promise.resolve(), set: () => Promise.resolve(),
            errorName: () => 'UNKNOWN', effective: { channels: 1, maxConcurrentRequests: 0 },
            close: () => {
              closed = true;
            },
          }),
        );
        assert.equal(report, undefined);
        assert.equal(process.exitCode, 2);
      } finally {
        process.stderr.write = write;
        process.exitCode = code;
      }
      assert.ok(closed);
      return written.join('');
    }
    assert.match(await refusal(['--max-concurrent-requests', 'auto']), /--max-concurrent-requests auto/);
    assert.match(await refusal(['--delay-ms', '1']), /--delay-ms/);
  });

  for (const workload of ['dictionary', 'list', 'sorted-set']) {
    test(`the ${workload} workload runs clean`, async () => {
      const { stdout } = await run(process.execPath, [LOADGEN, '--endpoint', server.endpoint, '--duration', '1',
        '--warmup', '0.2', '--concurrency', '4', '--keyspace', '20', '--workload', workload, '--json']);
      const report = JSON.parse(stdout) as { requests: number; errors: object; config: { workload: string } };
      assert.deepEqual(schemaErrors(report), []);
      assert.equal(report.config.workload, workload);
      assert.ok(report.requests > 0);
      // No call failed: not even a wrong type from a key another workload wrote.
      assert.deepEqual(report.errors, {});
    });
  }

  test('open loop and bad flags', async () => {
    const { stdout } = await run(process.execPath, [LOADGEN, '--endpoint', server.endpoint, '--duration', '1',
      '--warmup', '0', '--rate', '200', '--json']);
    const report = JSON.parse(stdout) as { rps: number; config: { rate: number } };
    assert.deepEqual(schemaErrors(report), []);
    assert.equal(report.config.rate, 200);
    assert.ok(report.rps > 100 && report.rps < 300, `rps ${report.rps} at --rate 200`);
    await assert.rejects(run(process.execPath, [LOADGEN, '--concurrency', 'many']), (err: { code: number; stderr: string }) =>
      err.code === 2 && /--concurrency/.test(err.stderr));
    await assert.rejects(run(process.execPath, [LOADGEN, '--workload', 'hash']), (err: { code: number; stderr: string }) =>
      err.code === 2 && /--workload/.test(err.stderr));
  });

  test('the schema refuses renamed, missing and unknown fields', () => {
    const percentiles = { p50: 0.5, p90: 0.8, p99: 1.2, p999: 2, max: 3.1 };
    const report = {
      sdk: 'jiffy-js', sdk_version: '0.1.0', runtime: 'node 20.20.2 transport=http2',
      config: { concurrency: 4, rate: 0, channels: 1, max_concurrent_requests: 10, preset: 'in_region', duration_s: 1,
        warmup_s: 0.2, value_size: 100, keyspace: 10_000, get_ratio: 0.5, workload: 'scalar', transport: 'http2' },
      requests: 1000, rps: 1000, errors: {}, latency_ms: percentiles,
      latency_ms_by_op: { get: percentiles, set: percentiles }, connections: 1, client_cpu_percent: 50,
    };
    assert.deepEqual(schemaErrors(report), []);
    const { rps, ...withoutRps } = report;
    assert.notDeepEqual(schemaErrors({ ...withoutRps, requests_per_s: rps }), [], 'a renamed top-level field passed');
    const { duration_s: duration, ...config } = report.config;
    assert.notDeepEqual(schemaErrors({ ...report, config: { ...config, duration } }), [], 'a renamed config field passed');
    const { p999, ...withoutP999 } = percentiles;
    assert.notDeepEqual(schemaErrors({ ...report, latency_ms: { ...withoutP999, p99_9: p999 } }), [],
      'a renamed percentile passed');
    assert.notDeepEqual(schemaErrors({ ...report, errors: { UNAVAILABLE: '3' } }), [], 'a string error count passed');
    const auto = { ...report, config: { ...report.config, max_concurrent_requests: 'auto' }, in_flight_limit: [[0, 4], [0.1, 8]] };
    assert.deepEqual(schemaErrors(auto), []);
    assert.notDeepEqual(schemaErrors({ ...auto, in_flight_limit: [[0, 4.5]] }), [], 'a fractional limit passed');
    assert.notDeepEqual(schemaErrors({ ...auto, config: { ...auto.config, max_concurrent_requests: 'adaptive' } }), [],
      'a cap other than a count or auto passed');
  });
});
