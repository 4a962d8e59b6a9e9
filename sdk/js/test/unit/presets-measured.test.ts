// latest() carries the knobs its jiffy-tune report recommended, and says
// which report and over which transport: the values are checked against the
// report's results.json.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { inRegion, lambda, laptop, lowLatency, type Preset } from '../../src/presets.js';

const REPO = new URL('../../../../', import.meta.url);

interface Configuration {
  sdk: string;
  channels: number;
  concurrency: number;
  max_concurrent_requests: number;
  // Absent in reports from before jiffy-tune swept transports.
  transport?: string;
}

interface Recommendation {
  sdk: string;
  target_ms: number;
  met: boolean;
  statement: string;
  point: Configuration | null;
}

interface Point extends Configuration {
  loadgen: { runtime: string } | null;
}

interface Results {
  recommendations: Recommendation[];
  points: Point[];
}

function results(report: string): Results {
  return JSON.parse(readFileSync(new URL(`${report}/results.json`, REPO), 'utf8')) as Results;
}

function recommendation(report: string, targetMs: number): Recommendation {
  const found = results(report).recommendations.filter((r) => r.sdk === 'jiffy-js' && r.target_ms === targetMs);
  assert.equal(found.length, 1, `one jiffy-js recommendation for ${targetMs} ms in ${report}`);
  return found[0]!;
}

// The transports the chosen configuration's points ran over: as recorded, or
// (older reports) as the loadgen's runtime says, `... transport=http2`.
function transportsOf(report: string, chosen: Configuration): string[] {
  const points = results(report).points.filter(
    (p) =>
      p.sdk === chosen.sdk &&
      p.channels === chosen.channels &&
      p.concurrency === chosen.concurrency &&
      p.max_concurrent_requests === chosen.max_concurrent_requests &&
      (chosen.transport === undefined || p.transport === chosen.transport),
  );
  assert.ok(points.length > 0);
  const found = points.map((p) => p.transport ?? /transport=(\S+)$/.exec(p.loadgen?.runtime ?? '')?.[1] ?? 'unknown');
  return [...new Set(found)];
}

// The preset each target's recommendation feeds (jiffy-tune's rule: inRegion
// for targets of 10 ms and more, lowLatency below).
const PRESET_FOR_TARGET: [number, Preset][] = [
  [20, inRegion],
  [5, lowLatency],
];

describe('measured presets', () => {
  for (const [targetMs, preset] of PRESET_FOR_TARGET) {
    test(`${preset.name}.latest() is the report's recommendation for p99.9 < ${targetMs} ms`, () => {
      assert.ok(preset.measuredIn !== undefined);
      assert.ok(existsSync(new URL(`${preset.measuredIn}/report.md`, REPO)));
      const chosen = recommendation(preset.measuredIn, targetMs);
      assert.ok(chosen.met, chosen.statement);
      assert.equal(preset.latest().channels, chosen.point!.channels);
      assert.equal(preset.latest().maxConcurrentRequests, chosen.point!.max_concurrent_requests);
      assert.deepEqual(transportsOf(preset.measuredIn, chosen.point!), [preset.measuredTransport]);
    });

    test(`${preset.name}.latest() changes only the measured knobs`, () => {
      const { channels: _c, maxConcurrentRequests: _m, ...rest } = preset.latest();
      const { channels: _vc, maxConcurrentRequests: _vm, ...v1Rest } = preset.v1();
      assert.deepEqual(rest, v1Rest);
    });
  }

  for (const preset of [laptop, lambda]) {
    test(`${preset.name} is not measured: latest() is v1()`, () => {
      assert.equal(preset.measuredIn, undefined);
      assert.equal(preset.measuredTransport, undefined);
      assert.deepEqual(preset.latest(), preset.v1());
    });
  }
});
