// Reads the points of one bench/js/run.sh run (one JSON object per line),
// writes them with their medians to out/bench/js-<timestamp>.json and prints
// the tables: per client, the most throughput with p99.9 under 20 ms and
// under 5 ms, the 5,000-call point, and ratios measured in the same run;
// with ours on protosocket and http2, protosocket / http2 and whether
// protosocket keeps p99.9 under 5 ms at 20,000 rps; with open-loop points
// (RATES), each client's p99.9 at each fixed rate.
//
//   node bench/js/summarize.mjs <points.jsonl> <out.json> <command>
import { readFileSync, writeFileSync } from 'node:fs';

const [pointsFile, outFile, command] = process.argv.slice(2);
const points = readFileSync(pointsFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// Medians over rounds, per client, channels, concurrency and rate (0 = closed loop).
const groups = new Map();
for (const { client, report } of points) {
  const { channels, concurrency, rate } = report.config;
  const key = `${client}|${channels}|${concurrency}|${rate}`;
  if (!groups.has(key)) groups.set(key, { client, channels, concurrency, rate, reports: [] });
  groups.get(key).reports.push(report);
}
const medians = [...groups.values()].map((g) => ({
  client: g.client,
  channels: g.channels,
  concurrency: g.concurrency,
  rate: g.rate,
  rounds: g.reports.length,
  rps: median(g.reports.map((r) => r.rps)),
  p50_ms: median(g.reports.map((r) => r.latency_ms.p50)),
  p999_ms: median(g.reports.map((r) => r.latency_ms.p999)),
  cpu_percent: median(g.reports.map((r) => r.client_cpu_percent)),
  errors: g.reports.reduce((n, r) => n + Object.values(r.errors).reduce((a, b) => a + b, 0), 0),
}));
const closed = medians.filter((m) => m.rate === 0);
const open = medians.filter((m) => m.rate > 0);

const clients = [...new Set(medians.map((m) => m.client))];
const best = (client, limitMs) =>
  closed
    .filter((m) => m.client === client && m.p999_ms < limitMs && m.errors === 0)
    .sort((a, b) => b.rps - a.rps)[0];
const at5000 = (client) =>
  closed.filter((m) => m.client === client && m.concurrency === 5000).sort((a, b) => b.rps - a.rps)[0];

const rounded = (n) => Math.round(n).toLocaleString('en-US');
const fmt = (m) => (m === undefined ? 'none' : `${rounded(m.rps)} rps (c=${m.concurrency}, ch=${m.channels}, p99.9 ${m.p999_ms} ms)`);
const rows = clients.map((client) => ({ client, under20: best(client, 20), under5: best(client, 5), at5000: at5000(client) }));
const byName = Object.fromEntries(rows.map((row) => [row.client, row]));
const rps = (m) => m?.rps;
const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : 'n/a');

const lines = [];
if (closed.length > 0) {
  lines.push(`| client | best rps, p99.9 < 20 ms | best rps, p99.9 < 5 ms | 5,000 concurrent calls |`);
  lines.push(`|---|---|---|---|`);
  for (const row of rows) {
    const big = row.at5000 === undefined ? 'n/a' : `${rounded(row.at5000.rps)} rps, p50 ${row.at5000.p50_ms} ms, p99.9 ${row.at5000.p999_ms} ms, ${row.at5000.errors} errors (ch=${row.at5000.channels})`;
    lines.push(`| ${row.client} | ${fmt(row.under20)} | ${fmt(row.under5)} | ${big} |`);
  }
  const others = ['momento-js', 'bare-grpc-js'].filter((name) => name in byName);
  if (others.length > 0) lines.push('');
  for (const ours of others.length > 0 ? clients.filter((c) => c.startsWith('jiffy-')) : []) {
    const row = byName[ours];
    lines.push(
      `${ours}: / momento-js at p99.9 < 20 ms: ${ratio(rps(row.under20), rps(byName['momento-js']?.under20))}; ` +
        `/ momento-js at p99.9 < 5 ms: ${ratio(rps(row.under5), rps(byName['momento-js']?.under5))}; ` +
        `/ bare-grpc-js at p99.9 < 20 ms: ${ratio(rps(row.under20), rps(byName['bare-grpc-js']?.under20))}; ` +
        `/ momento-js at 5,000 calls: ${ratio(rps(row.at5000), rps(byName['momento-js']?.at5000))}`,
    );
  }
  const ps = byName['jiffy-protosocket'];
  const h2 = byName['jiffy-http2'];
  if (ps !== undefined && h2 !== undefined) {
    lines.push('');
    lines.push(
      `jiffy-protosocket / jiffy-http2: at p99.9 < 20 ms ${ratio(rps(ps.under20), rps(h2.under20))}; ` +
        `at p99.9 < 5 ms ${ratio(rps(ps.under5), rps(h2.under5))}`,
    );
  }
  // The highest-throughput closed-loop point with p99.9 under 5 ms, against 20,000 rps.
  for (const row of rows.filter((r) => r.client.startsWith('jiffy-'))) {
    const holds = row.under5 !== undefined && row.under5.rps >= 20_000;
    lines.push(`${row.client} holds p99.9 < 5 ms at >= 20,000 rps: ${holds ? 'yes' : 'no'} (highest rps with p99.9 < 5 ms: ${fmt(row.under5)})`);
  }
}
if (open.length > 0) {
  // Open loop: calls leave on schedule and are timed from when they were due,
  // so "p99.9 < 5 ms at R/s" is stated at the rate itself.
  if (lines.length > 0) lines.push('');
  lines.push(`| client | ch | offered rps | achieved rps | p50 ms | p99.9 ms | errors | p99.9 < 5 ms |`);
  lines.push(`|---|---:|---:|---:|---:|---:|---:|---|`);
  const sorted = [...open].sort((a, b) => clients.indexOf(a.client) - clients.indexOf(b.client) || a.channels - b.channels || a.rate - b.rate);
  for (const m of sorted) {
    const meets = m.p999_ms < 5 && m.errors === 0;
    lines.push(`| ${m.client} | ${m.channels} | ${rounded(m.rate)} | ${rounded(m.rps)} | ${m.p50_ms} | ${m.p999_ms} | ${m.errors} | ${meets ? 'yes' : 'no'} |`);
  }
}
const runtimes = [...new Set(points.map((p) => p.report.runtime))];
lines.push('');
lines.push(`runtime: ${runtimes.join('; ')}`);
const table = lines.join('\n');
writeFileSync(outFile, `${JSON.stringify({ date: new Date().toISOString(), command, medians, table, points }, null, 1)}\n`);
process.stdout.write(`${table}\n\nall points: ${outFile}\n`);
