// One measured run of one transport, closed loop: `--concurrency` workers,
// each with one call in flight, 100-byte values, half gets and half sets.
// Prints one JSON line. Started by transport-compare.mjs (pinned, under the
// bench lock); runnable by hand for profiling:
//
//   node --cpu-prof bench/transport-client.mjs --endpoint 127.0.0.1:8080 --transport http2
//
// Besides latency and CPU it reports what explains a tail: GC pauses seen
// by a PerformanceObserver, and how long the main thread waited for a CPU
// (from /proc/self/task/<pid>/schedstat: time runnable but not running).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';
import hdr from 'hdr-histogram-js';
import { create, toBinary } from '@bufbuild/protobuf';

const { values } = parseArgs({
  options: {
    endpoint: { type: 'string', default: '127.0.0.1:8080' },
    transport: { type: 'string', default: 'http2' },
    concurrency: { type: 'string', default: '1' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    dist: { type: 'string', default: new URL('../dist/', import.meta.url).pathname },
  },
});
const concurrency = Number(values.concurrency);
const durationMs = Number(values.duration) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const [host, port] = values.endpoint.split(':');
const dist = values.dist.endsWith('/') ? values.dist : `${values.dist}/`;
const scs = await import(`${dist}gen/cacheclient_pb.js`);
const control = await import(`${dist}gen/controlclient_pb.js`);

const CACHE = 'transport-bench';
const metadata = Object.freeze({ cache: CACHE, authorization: '' });

/** call(path, bytes, deadlineMs) => Promise<bytes>, per transport. */
async function openTransport(name) {
  if (name === 'grpc-js-bare') {
    // grpc-js as most Node gRPC code uses it: a Client, identity serializers.
    const grpc = await import('@grpc/grpc-js');
    const client = new grpc.Client(values.endpoint, grpc.credentials.createInsecure(), {});
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    const id = (b) => b;
    const call = (path, request, deadline) =>
      new Promise((resolve, reject) =>
        client.makeUnaryRequest(path, id, id, Buffer.from(request), md, { deadline }, (err, res) => (err ? reject(err) : resolve(res))),
      );
    return { call, close: () => client.close() };
  }
  const module =
    name === 'http2'
      ? await import(`${dist}transport/http2-channel.js`)
      : await import(`${dist}transport/grpc-js-channel.js`);
  const factory = name === 'http2' ? module.createHttp2Channel : module.createGrpcJsChannel;
  const channel = factory({ host, port: Number(port), keepaliveTimeMs: 0, keepaliveTimeoutMs: 0, maxReceiveMessageBytes: 4 << 20 });
  await channel.connect(Date.now() + 5_000);
  return { call: (path, request, deadline) => channel.unary(path, request, { deadline, metadata }), close: () => channel.close() };
}

const { call, close } = await openTransport(values.transport);
try {
  await call('/control_client.ScsControl/CreateCache', toBinary(control._CreateCacheRequestSchema, create(control._CreateCacheRequestSchema, { cacheName: CACHE })), Date.now() + 5_000);
} catch (err) {
  if (err.code !== 6) throw err; // ALREADY_EXISTS
}

const value = Buffer.alloc(100, 0x61);
const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
const gcPauses = [];
let measuring = false;
new PerformanceObserver((list) => {
  if (measuring) for (const e of list.getEntries()) gcPauses.push(e.duration);
}).observe({ entryTypes: ['gc'] });
const mainThreadWaitNs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]);

let ops = 0;
let errors = 0;
let stop = false;
async function worker(id) {
  for (let i = id; !stop; i += concurrency) {
    const key = Buffer.from(`key-${(i * 7919) % 10_000}`);
    const isGet = (i & 1) === 0;
    const request = isGet
      ? toBinary(scs._GetRequestSchema, create(scs._GetRequestSchema, { cacheKey: key }))
      : toBinary(scs._SetRequestSchema, create(scs._SetRequestSchema, { cacheKey: key, cacheBody: value, ttlMilliseconds: 600_000n }));
    const started = performance.now();
    try {
      await call(isGet ? '/cache_client.Scs/Get' : '/cache_client.Scs/Set', request, Date.now() + 5_000);
    } catch {
      if (measuring) errors++;
      continue;
    }
    if (measuring) {
      histogram.recordValue(Math.max(1, Math.round((performance.now() - started) * 1000)));
      ops++;
    }
  }
}

let cpuStart;
let waitStart;
let measuredFrom;
setTimeout(() => {
  measuring = true;
  cpuStart = process.cpuUsage();
  waitStart = mainThreadWaitNs();
  measuredFrom = performance.now();
}, warmupMs);
setTimeout(() => {
  stop = true;
}, warmupMs + durationMs);
await Promise.all(Array.from({ length: concurrency }, (_, id) => worker(id)));
measuring = false;
const seconds = (performance.now() - measuredFrom) / 1000;
const cpu = process.cpuUsage(cpuStart);
const ms = (us) => Math.round(us) / 1000;
gcPauses.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    transport: values.transport,
    node_flags: process.execArgv.join(' '),
    concurrency,
    ops,
    errors,
    rps: Math.round(ops / seconds),
    p50: ms(histogram.getValueAtPercentile(50)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p999: ms(histogram.getValueAtPercentile(99.9)),
    max: ms(histogram.maxValue),
    cpu_us_per_op: Math.round((cpu.user + cpu.system) / Math.max(1, ops)),
    gc_pauses_per_s: Math.round(gcPauses.length / seconds),
    gc_pause_p50_ms: +(gcPauses[gcPauses.length >> 1] ?? 0).toFixed(2),
    gc_pause_max_ms: +(gcPauses.at(-1) ?? 0).toFixed(2),
    gc_ms_per_s: Math.round(gcPauses.reduce((a, b) => a + b, 0) / seconds),
    main_thread_cpu_wait_ms_per_s: Math.round((mainThreadWaitNs() - waitStart) / 1e6 / seconds),
  }),
);
close();
