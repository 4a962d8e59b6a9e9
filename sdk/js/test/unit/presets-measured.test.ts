// latest() carries the knobs its jiffy-tune report recommended, and says
// which report: the values are checked against the report's results.json.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { inRegion, lambda, laptop, lowLatency, type Preset } from '../../src/presets.js';

const REPO = new URL('../../../../', import.meta.url);

interface Recommendation {
  sdk: string;
  target_ms: number;
  met: boolean;
  statement: string;
  point: { channels: number; max_concurrent_requests: number } | null;
}

function recommendation(report: string, targetMs: number): Recommendation {
  const results = JSON.parse(readFileSync(new URL(`${report}/results.json`, REPO), 'utf8')) as {
    recommendations: Recommendation[];
  };
  const found = results.recommendations.filter((r) => r.sdk === 'jiffy-js' && r.target_ms === targetMs);
  assert.equal(found.length, 1, `one jiffy-js recommendation for ${targetMs} ms in ${report}`);
  return found[0]!;
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
      assert.deepEqual(preset.latest(), preset.v1());
    });
  }
});
