// Side-by-side transport benchmark: bare grpc-js stubs, the SDK's grpc-js
// channel and its node:http2 channel, one jiffy-server, closed loop; and,
// as `sdk-grpc-js` / `sdk-http2`, the whole SDK through its loadgen.
//
//   node bench/transport-compare.mjs [--transports grpc-js-bare,grpc-js,http2]
//        [--concurrency 1,2,5,10,50] [--rounds 3] [--duration 5] [--warmup 1]
//        [--flags '|--max-semi-space-size=1 --single-threaded-gc'] [--dist DIR]
//
// Takes /tmp/jiffy-bench.lock for the whole run, pins the server to core 0
// and every client to core 1, interleaves the variants (every variant at one
// concurrency, then the next; the order rotates each round) and prints the
// median of the rounds per variant. `--flags` is a '|'-separated list of
// Node option sets, each crossed with every transport. Each point also
// carries the server's own p99.9 for the same window (from the
// jiffy_request_duration_seconds histogram), to tell client tail from server
// tail. Raw points go to --out (JSON lines).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { get } from 'node:http';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const LOCK = '/tmp/jiffy-bench.lock';
const here = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({
  options: {
    transports: { type: 'string', default: 'grpc-js-bare,grpc-js,http2' },
    concurrency: { type: 'string', default: '1,2,5,10,50' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    flags: { type: 'string', default: '' },
    dist: { type: 'string', default: `${here}../dist/` },
    server: { type: 'string', default: process.env.JIFFY_SERVER_BIN ?? `${here}../../../target/release/jiffy-server` },
    out: { type: 'string', default: `/tmp/transport-bench-${new Date().toISOString().replace(/[:.]/g, '')}.jsonl` },
  },
});

if (process.env.JIFFY_BENCH_LOCKED !== '1') {
  const result = spawnSync('flock', [LOCK, process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, JIFFY_BENCH_LOCKED: '1' },
  });
  process.exit(result.status ?? 1);
}

const variants = values.flags
  .split('|')
  .flatMap((flags) => values.transports.split(',').map((transport) => ({ transport, flags: flags.trim() })));
const label = (v) => (v.flags ? `${v.transport} ${v.flags}` : v.transport);

async function startServer() {
  const child = spawn('taskset', ['-c', '0', values.server, '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ports = {};
  for await (const line of createInterface({ input: child.stdout })) {
    const m = /^(metrics )?listening on [\d.]+:(\d+)$/.exec(line.trim());
    if (m) ports[m[1] ? 'metrics' : 'data'] = Number(m[2]);
    if (ports.data) break;
  }
  return { child, ...ports };
}

/** Cumulative request-duration buckets (seconds -> count) for Get and Set. */
async function serverBuckets(metricsPort) {
  const text = await new Promise((resolve, reject) =>
    get(`http://127.0.0.1:${metricsPort}/metrics`, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject),
  );
  const buckets = new Map();
  for (const line of text.split('\n')) {
    const m = /^jiffy_request_duration_seconds_bucket\{rpc="(Get|Set)",transport="grpc",le="([^"]+)"\} (\d+)/.exec(line);
    if (m) buckets.set(m[2], (buckets.get(m[2]) ?? 0) + Number(m[3]));
  }
  return buckets;
}

/** Upper bound (ms) of the bucket holding the q-quantile of the calls between two snapshots. */
function serverQuantileMs(before, after, q) {
  const rows = [...after].map(([le, n]) => [le === '+Inf' ? Infinity : Number(le), n - (before.get(le) ?? 0)]);
  rows.sort((a, b) => a[0] - b[0]);
  const total = rows.at(-1)?.[1] ?? 0;
  const row = rows.find(([, n]) => n >= q * total);
  return row ? +(row[0] * 1000).toFixed(3) : null;
}

/**
 * `sdk-<transport>` runs the SDK's own loadgen (client, pool, limiter; one
 * channel, the in_region preset) instead of a bare channel, mapped to the
 * same columns; the loadgen does not report GC.
 */
function runLoadgen(variant, concurrency, endpoint) {
  const args = [
    '-c', '1', process.execPath, ...variant.flags.split(' ').filter(Boolean), `${values.dist}/loadgen.js`,
    '--endpoint', endpoint, '--transport', variant.transport.slice('sdk-'.length), '--channels', '1',
    '--concurrency', String(concurrency), '--duration', values.duration, '--warmup', values.warmup, '--json',
  ];
  const result = spawnSync('taskset', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${label(variant)} c=${concurrency} failed:\n${result.stderr}`);
  const report = JSON.parse(result.stdout);
  const { p50, p99, p999, max } = report.latency_ms;
  const cpuUsPerOp = Math.round((report.client_cpu_percent * 10_000) / Math.max(1, report.rps));
  return { transport: variant.transport, concurrency, rps: report.rps, p50, p99, p999, max, cpu_us_per_op: cpuUsPerOp };
}

function runClient(variant, concurrency, endpoint) {
  if (variant.transport.startsWith('sdk-')) return runLoadgen(variant, concurrency, endpoint);
  const args = [
    '-c', '1', process.execPath, ...variant.flags.split(' ').filter(Boolean), `${here}transport-client.mjs`,
    '--endpoint', endpoint, '--transport', variant.transport, '--concurrency', String(concurrency),
    '--duration', values.duration, '--warmup', values.warmup, '--dist', values.dist,
  ];
  const result = spawnSync('taskset', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${label(variant)} c=${concurrency} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1));
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return '-';
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const server = await startServer();
const endpoint = `127.0.0.1:${server.data}`;
const points = [];
try {
  const rounds = Number(values.rounds);
  for (let round = 0; round < rounds; round++) {
    for (const concurrency of values.concurrency.split(',').map(Number)) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]);
      for (const variant of order) {
        const before = await serverBuckets(server.metrics);
        const point = { round, label: label(variant), ...runClient(variant, concurrency, endpoint) };
        point.server_p999 = serverQuantileMs(before, await serverBuckets(server.metrics), 0.999);
        points.push(point);
        appendFileSync(values.out, `${JSON.stringify(point)}\n`);
        process.stderr.write(`round ${round} c=${concurrency} ${point.label}: ${point.rps} rps, p99.9 ${point.p999} ms\n`);
      }
    }
  }
} finally {
  server.child.kill();
}

const columns = ['rps', 'p50', 'p99', 'p999', 'max', 'cpu_us_per_op', 'server_p999', 'gc_pause_p50_ms', 'gc_ms_per_s', 'main_thread_cpu_wait_ms_per_s'];
console.log(`medians of ${values.rounds} interleaved rounds, ${values.duration} s each; raw points: ${values.out}\n`);
console.log(`| variant | concurrency | ${columns.join(' | ')} |`);
console.log(`|${'---|'.repeat(columns.length + 2)}`);
for (const concurrency of values.concurrency.split(',').map(Number)) {
  for (const variant of variants) {
    const mine = points.filter((p) => p.label === label(variant) && p.concurrency === concurrency);
    console.log(`| ${label(variant)} | ${concurrency} | ${columns.map((c) => median(mine.map((p) => p[c] ?? NaN))).join(' | ')} |`);
  }
}
