// The one JSON object of docs/LOADGEN.md, and the readable summary.
import type { Histogram } from 'hdr-histogram-js';
import type { Driver, RunResult } from './harness.js';
import type { LoadgenConfig } from './options.js';

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export interface LoadgenReport {
  sdk: string;
  sdk_version: string;
  runtime: string;
  config: {
    concurrency: number;
    rate: number;
    channels: number | null;
    max_concurrent_requests: number | 'auto' | null;
    preset: string;
    duration_s: number;
    warmup_s: number;
    value_size: number;
    keyspace: number;
    get_ratio: number;
    workload: string;
    transport?: string;
    delay_ms?: number;
  };
  requests: number;
  rps: number;
  errors: Record<string, number>;
  latency_ms: Percentiles;
  latency_ms_by_op: { get: Percentiles; set: Percentiles };
  connections: number | null;
  client_cpu_percent: number;
  /** [seconds since the load began, the client's in-flight limit], every 0.1 s; when the driver can tell. */
  in_flight_limit?: [number, number][];
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

function percentiles(histogram: Histogram): Percentiles {
  const ms = (micros: number): number => round(micros / 1000, 3);
  if (histogram.totalCount === 0) return { p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  return {
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p999: ms(histogram.getValueAtPercentile(99.9)),
    max: ms(histogram.maxValue),
  };
}

/** The report's `transport`: the one --transport forced, else what the driver's client picked. */
function transportOf(config: LoadgenConfig, driver: Driver): { transport?: string } {
  if (config.transport !== 'auto') return { transport: config.transport };
  return driver.transport === undefined ? {} : { transport: driver.transport };
}

export function buildReport(
  driver: Driver,
  config: LoadgenConfig,
  result: RunResult,
  connections: number | undefined,
): LoadgenReport {
  return {
    sdk: driver.sdk,
    sdk_version: driver.sdkVersion,
    runtime: driver.runtime,
    config: {
      concurrency: config.concurrency,
      rate: config.rate,
      channels: driver.effective.channels ?? null,
      max_concurrent_requests: driver.effective.maxConcurrentRequests ?? null,
      preset: config.preset,
      duration_s: config.durationS,
      warmup_s: config.warmupS,
      value_size: config.valueSize,
      keyspace: config.keyspace,
      get_ratio: config.getRatio,
      workload: config.workload,
      ...transportOf(config, driver),
      ...(config.delayMs > 0 ? { delay_ms: config.delayMs } : {}),
    },
    requests: result.requests,
    rps: round(result.requests / result.elapsedS, 1),
    errors: result.errors,
    latency_ms: percentiles(result.all),
    latency_ms_by_op: { get: percentiles(result.byOp.get), set: percentiles(result.byOp.set) },
    connections: connections ?? null,
    client_cpu_percent: round(result.cpuPercent, 1),
    ...(result.inFlightLimit === undefined ? {} : { in_flight_limit: result.inFlightLimit }),
  };
}

export function formatSummary(report: LoadgenReport): string {
  const row = (name: string, p: Percentiles): string =>
    `  ${name.padEnd(5)} ${[p.p50, p.p90, p.p99, p.p999, p.max].map((v) => v.toFixed(3).padStart(9)).join(' ')}`;
  const c = report.config;
  const last = report.in_flight_limit?.at(-1);
  const cap = c.max_concurrent_requests === 'auto' && last !== undefined ? `auto (last ${last[1]})` : (c.max_concurrent_requests ?? '-');
  const errors = Object.entries(report.errors).map(([name, n]) => `${name}=${n}`).join(' ') || 'none';
  return [
    `${report.sdk} ${report.sdk_version} (${report.runtime})`,
    `  ${c.rate > 0 ? `open loop at ${c.rate} req/s` : `closed loop, concurrency ${c.concurrency}`}, ` +
      `channels ${c.channels ?? '-'}, max in flight ${cap}, preset ${c.preset}, workload ${c.workload}` +
      (c.transport === undefined ? '' : `, transport ${c.transport}`),
    `  ${report.requests} requests in ${c.duration_s} s: ${report.rps} req/s; client CPU ${report.client_cpu_percent}%; ` +
      `${report.connections ?? '?'} connections; errors: ${errors}`,
    `  latency ms      p50       p90       p99     p99.9       max`,
    row('all', report.latency_ms),
    row('get', report.latency_ms_by_op.get),
    row('set', report.latency_ms_by_op.set),
  ].join('\n');
}
