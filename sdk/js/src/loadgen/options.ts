// The load generator's flags (docs/LOADGEN.md), shared by every driver so that
// ours, the official SDK's and the bare grpc-js one read the same command line.
import { parseArgs } from 'node:util';
import { WORKLOADS, type Workload, isWorkload } from './workloads.js';

export interface LoadgenConfig {
  endpoint: string;
  cache: string;
  concurrency: number;
  /** Requests/s in total; 0 = closed loop. */
  rate: number;
  /** undefined = the preset's. */
  channels: number | undefined;
  /** undefined = the preset's; 0 = no cap; 'auto' = the SDK's adaptive limit. */
  maxConcurrentRequests: number | 'auto' | undefined;
  preset: string;
  durationS: number;
  warmupS: number;
  valueSize: number;
  keyspace: number;
  getRatio: number;
  /** What a get and a set are (workloads.ts). */
  workload: Workload;
  json: boolean;
  /**
   * For our SDK: 'auto' (the client's default: get and set over protosocket
   * where the server offers it, else http2; http2 with --delay-ms, a gRPC
   * header), or grpc-js, http2 or protosocket, forced. Drivers without a
   * choice ignore it.
   */
  transport: string;
  /** With `--transport protosocket`: the server's --protosocket-listen address. */
  protosocketEndpoint: string | undefined;
  /** The server holds every call this long (its fault-injection header `delay-ms`); 0 = not sent. */
  delayMs: number;
}

export const USAGE = `flags (docs/LOADGEN.md):
  --endpoint HOST:PORT            server (127.0.0.1:8080)
  --cache NAME                    cache, created if missing (loadgen)
  --concurrency N                 closed-loop workers (50)
  --rate R                        open loop at R requests/s; 0 = closed loop (0)
  --channels N                    channels (the preset's)
  --max-concurrent-requests N     in-flight cap; 0 = none; auto = adaptive (the preset's)
  --preset NAME                   laptop, in_region, low_latency, lambda (in_region)
  --duration S / --warmup S       measured / discarded seconds (10 / 2)
                                  (open loop: the warm-up runs closed loop)
  --value-size B                  bytes per value (100)
  --keyspace N                    distinct keys (10000)
  --get-ratio F                   share of gets (0.5)
  --workload NAME                 scalar, dictionary, list, sorted-set (scalar)
  --transport auto|grpc-js|http2|protosocket
                                  transport (auto: the SDK's default, protosocket
                                  where the server offers it, else http2);
                                  protosocket: gets and sets over protosocket,
                                  the rest over http2; grpc-js, http2: all gRPC
  --protosocket-endpoint HOST:PORT
                                  the server's --protosocket-listen address
                                  (required with --transport protosocket)
  --delay-ms MS                   the server holds each call MS ms (fault-injection
                                  header delay-ms; jiffy-js only) (0)
  --json                          one JSON object on stdout

Node's young-generation GC sets the p99.9 floor (docs/transport.md): for
latency runs start node with --max-semi-space-size=1 (also via NODE_OPTIONS),
plus --single-threaded-gc when pinned to one core. The JSON's runtime field
records the flags.`;

function number(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new RangeError(`--${name} must be a number >= ${min}; got '${raw}'`);
  return value;
}

export function parseLoadgenArgs(argv: readonly string[]): LoadgenConfig {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      endpoint: { type: 'string' },
      cache: { type: 'string' },
      concurrency: { type: 'string' },
      rate: { type: 'string' },
      channels: { type: 'string' },
      'max-concurrent-requests': { type: 'string' },
      preset: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'value-size': { type: 'string' },
      keyspace: { type: 'string' },
      'get-ratio': { type: 'string' },
      workload: { type: 'string' },
      transport: { type: 'string' },
      'protosocket-endpoint': { type: 'string' },
      'delay-ms': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const getRatio = number('get-ratio', values['get-ratio'], 0.5, 0);
  if (getRatio > 1) throw new RangeError(`--get-ratio must be between 0 and 1; got ${getRatio}`);
  const protosocket = values.transport === 'protosocket';
  if (protosocket && values['protosocket-endpoint'] === undefined) {
    throw new RangeError("--transport protosocket needs --protosocket-endpoint HOST:PORT (the server's --protosocket-listen)");
  }
  if (!protosocket && values['protosocket-endpoint'] !== undefined) {
    throw new RangeError('--protosocket-endpoint goes with --transport protosocket');
  }
  if (protosocket && values['delay-ms'] !== undefined) {
    throw new RangeError('--delay-ms is a gRPC header: protosocket commands cannot carry it');
  }
  const workload = values.workload ?? 'scalar';
  if (!isWorkload(workload)) throw new RangeError(`--workload must be one of ${WORKLOADS.join(', ')}; got '${workload}'`);
  return {
    endpoint: values.endpoint ?? '127.0.0.1:8080',
    cache: values.cache ?? 'loadgen',
    concurrency: Math.floor(number('concurrency', values.concurrency, 50, 1)),
    rate: number('rate', values.rate, 0, 0),
    channels: values.channels === undefined ? undefined : Math.floor(number('channels', values.channels, 1, 1)),
    maxConcurrentRequests:
      values['max-concurrent-requests'] === undefined || values['max-concurrent-requests'] === 'auto'
        ? values['max-concurrent-requests']
        : Math.floor(number('max-concurrent-requests', values['max-concurrent-requests'], 0, 0)),
    preset: (values.preset ?? 'in_region').replace(/-/g, '_'),
    durationS: number('duration', values.duration, 10, 0.1),
    warmupS: number('warmup', values.warmup, 2, 0),
    valueSize: Math.floor(number('value-size', values['value-size'], 100, 0)),
    keyspace: Math.floor(number('keyspace', values.keyspace, 10_000, 1)),
    getRatio,
    workload,
    json: values.json ?? false,
    transport: values.transport ?? 'auto',
    protosocketEndpoint: values['protosocket-endpoint'],
    delayMs: Math.floor(number('delay-ms', values['delay-ms'], 0, 0)),
  };
}
