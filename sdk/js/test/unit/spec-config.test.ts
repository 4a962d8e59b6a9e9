// The SDK against sdk/spec.json: config defaults, presets, endpoints from the
// environment, and the error classes and their statuses. The Python SDK runs
// the same file through tests/test_spec_config.py, so a difference between
// the SDKs fails one of them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ADAPTIVE, AdaptiveLimit, DROP_EXEMPT_REASONS, DROP_STATUSES } from '../../src/adaptive-limit.js';
import { CacheClient } from '../../src/cache-client.js';
import { DEFAULTS, resolveKnobs } from '../../src/config.js';
import { resolveEndpoints, type HostPort } from '../../src/endpoints.js';
import * as errors from '../../src/errors.js';
import * as index from '../../src/index.js';
import * as presets from '../../src/presets.js';
import { Status, statusName } from '../../src/status.js';
import { StatusError } from '../../src/transport/channel.js';
import { fakeFactory } from '../support/fake-channel.js';

type Value = number | string | boolean | null;

interface LanguageKnob {
  name: string | null;
  unit: string | null;
  off?: Value;
}

interface Knob {
  name: string;
  unit: string | null;
  default: Value;
  in_presets?: boolean;
  python: LanguageKnob | null;
  js: LanguageKnob | null;
}

interface TraceSegment {
  base_ms: number;
  per_call_ms: number;
  samples: number;
  spike_every: number;
  spike_ms: number;
  drop_every: number;
}

interface Trace {
  name: string;
  ceiling: number;
  target_p999_ms: number | null;
  segments: TraceSegment[];
  expected: { limit: number; chosen: number; baseline_ms: number }[];
}

interface PresetSpec {
  name: string;
  python: string;
  js: string;
  measured_in: string | null;
  measured_transport: Record<'python' | 'js', string> | null;
  v1: Record<string, Value>;
  per_sdk: Record<'python' | 'js', Record<'v1' | 'latest', Record<string, Value>>>;
}

interface EndpointCase {
  env: Record<string, string>;
  error?: string;
  data?: string;
  control?: string;
  tls?: boolean;
  authorization?: string | null;
}

interface ErrorSpec {
  name: string;
  js: string;
  parent: string | null;
  statuses: string[];
}

interface Spec {
  config: { knobs: Knob[] };
  adaptive: {
    value: string;
    constants: Record<string, number>;
    drop_statuses: string[];
    drop_exempt_reasons: string[];
    methods: { name: string; python: string; js: string }[];
    traces: Trace[];
  };
  presets: { list: PresetSpec[] };
  endpoint_env: { cases: EndpointCase[] };
  errors: { classes: ErrorSpec[]; not_found: { reason: string | null; cache_call: boolean; class: string }[] };
}

const SPEC = JSON.parse(readFileSync(new URL('../../../spec.json', import.meta.url), 'utf8')) as Spec;
const JS_KNOBS = SPEC.config.knobs.filter((knob) => knob.js?.name);
// Divisors from the spec's unit to this SDK's; JS durations are ms, as the spec's.
const DIVISOR: Record<string, number> = { 'ms>s': 1000 };

function jsName(knob: Knob): string {
  return knob.js!.name!;
}

/**
 * A value in the spec's neutral unit as this SDK writes it. An `off` of
 * null is `null` in JS too (`protosocketEndpoint: null`, every call over
 * gRPC), which an option left out is not: that takes the default.
 */
function toJs(knob: Knob, value: Value): Value {
  if (value === null) {
    assert.ok(knob.js!.off !== undefined, `${knob.name} has no off value`);
    return knob.js!.off;
  }
  if (typeof value !== 'number') return value;
  return value / (DIVISOR[`${knob.unit}>${knob.js!.unit}`] ?? 1);
}

function knobNamed(name: string): Knob {
  const found = SPEC.config.knobs.find((knob) => knob.name === name);
  assert.ok(found, `no knob ${name} in the spec`);
  return found;
}

function read(object: object, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown>)[part], object);
}

/** Knobs as the JS SDK writes them, from the spec's names and units. */
function knobsFrom(neutral: Record<string, Value>): Record<string, unknown> {
  const knobs: Record<string, unknown> = { retry: {} };
  for (const [name, value] of Object.entries(neutral)) {
    const knob = knobNamed(name);
    const [first, second] = jsName(knob).split('.') as [string, string | undefined];
    if (second === undefined) knobs[first] = toJs(knob, value);
    else (knobs[first] as Record<string, unknown>)[second] = toJs(knob, value);
  }
  return knobs;
}

describe('sdk/spec.json: config', () => {
  for (const knob of JS_KNOBS) {
    test(`DEFAULTS.${jsName(knob)} is the spec's default`, () => {
      assert.equal(read(DEFAULTS, jsName(knob)), toJs(knob, knob.default));
    });
  }

  test('every knob of DEFAULTS is in the spec', () => {
    const { retry, ...top } = DEFAULTS;
    const names = [...Object.keys(top), ...Object.keys(retry).map((name) => `retry.${name}`)];
    assert.deepEqual(names.sort(), JS_KNOBS.map(jsName).sort());
  });

  test('a client given no options but an endpoint uses the defaults', async () => {
    const factory = fakeFactory(() => Promise.resolve(new Uint8Array()));
    const client = await CacheClient.create({ endpoint: '127.0.0.1:1', channelFactory: factory });
    try {
      const { transport: _transport, ...expected } = resolveKnobs({});
      const { transport: _used, ...used } = client.knobs;
      assert.deepEqual(used, expected);
      const cap = knobNamed('max_concurrent_requests');
      assert.equal(client.knobs.maxConcurrentRequests, toJs(cap, cap.default));
    } finally {
      client.close();
    }
  });
});

describe('sdk/spec.json: presets', () => {
  for (const spec of SPEC.presets.list) {
    const preset = (presets as unknown as Record<string, presets.Preset | undefined>)[spec.js];

    test(`${spec.name} is presets.${spec.js}, found by its name`, () => {
      assert.ok(preset, `no preset ${spec.js}`);
      assert.equal(presets.presetByName(spec.name), preset);
      assert.equal(preset.name, spec.name);
      assert.equal(preset.measuredIn, spec.measured_in ?? undefined);
      assert.equal(preset.measuredTransport, spec.measured_transport?.js);
      // A measured preset says over what; one not measured has no transport to name.
      assert.equal(spec.measured_in === null, spec.measured_transport === null);
    });

    for (const version of ['v1', 'latest'] as const) {
      test(`${spec.name}.${version}() has the spec's values`, () => {
        const expected = knobsFrom({ ...spec.v1, ...spec.per_sdk.js[version] });
        assert.deepEqual({ ...preset![version](), retry: { ...preset![version]().retry } }, expected);
        const named = new Set([...Object.keys(spec.v1), ...Object.keys(spec.per_sdk.js[version])]);
        const settable = JS_KNOBS.filter(
          (knob) => knob.name !== 'transport' && knob.name !== 'max_receive_message_bytes' && knob.in_presets !== false,
        );
        assert.deepEqual([...named].sort(), settable.map((knob) => knob.name).sort());
      });
    }
  }
});

describe('sdk/spec.json: the adaptive limit', () => {
  const spec = SPEC.adaptive;
  const camel = (name: string): string => name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());

  test('its constants are the spec\'s, and no others', () => {
    const constants = Object.fromEntries(Object.entries(spec.constants).map(([name, value]) => [camel(name), value]));
    assert.deepEqual({ ...ADAPTIVE }, constants);
  });

  test('its value and its loss statuses are the spec\'s', () => {
    assert.equal(resolveKnobs({ maxConcurrentRequests: spec.value as 'auto' }).maxConcurrentRequests, 'auto');
    assert.deepEqual([...DROP_STATUSES].sort(), [...spec.drop_statuses].sort());
    assert.deepEqual([...DROP_EXEMPT_REASONS].sort(), [...spec.drop_exempt_reasons].sort());
  });

  for (const method of spec.methods) {
    test(`CacheClient.${method.js}() reads the limit's ${method.name}`, () => {
      assert.equal(typeof (CacheClient.prototype as unknown as Record<string, unknown>)[method.js], 'function');
    });
  }

  for (const trace of spec.traces) {
    test(`trace: ${trace.name}`, () => {
      const limit = new AdaptiveLimit(trace.ceiling, {
        targetP999Ms: trace.target_p999_ms ?? undefined,
        queueDelayMs: spec.constants.queue_delay_ms,
        now: () => 0,
      });
      const seen = trace.segments.map((segment) => {
        for (let number = 1; number <= segment.samples; number += 1) {
          const inFlight = limit.limit;
          let rtt = segment.base_ms + segment.per_call_ms * inFlight;
          if (segment.spike_every && number % segment.spike_every === 0) rtt = segment.spike_ms;
          if (segment.drop_every && number % segment.drop_every === 0) limit.drop();
          limit.sample(rtt, inFlight);
        }
        return { limit: limit.limit, chosen: limit.chosen, baseline_ms: Number(limit.baseline!.toFixed(9)) };
      });
      assert.deepEqual(seen, trace.expected);
    });
  }
});

function hostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

describe('sdk/spec.json: endpoints from the environment', () => {
  for (const spec of SPEC.endpoint_env.cases) {
    test(JSON.stringify(spec.env), () => {
      if (spec.error !== undefined) {
        assert.throws(
          () => resolveEndpoints({}, spec.env),
          (err: Error) => err instanceof errors.InvalidArgumentError && err.message.includes(spec.error!),
        );
        return;
      }
      const endpoints = resolveEndpoints({}, spec.env);
      assert.deepEqual(
        {
          data: hostPort(endpoints.data),
          control: hostPort(endpoints.control),
          tls: endpoints.tls !== undefined,
          authorization: endpoints.authorization ?? null,
        },
        { data: spec.data, control: spec.control, tls: spec.tls, authorization: spec.authorization },
      );
    });
  }
});

type ErrorClass = new (message: string) => errors.CacheError;

function errorClass(name: string): ErrorClass {
  const spec = SPEC.errors.classes.find((candidate) => candidate.name === name);
  assert.ok(spec, `no error ${name} in the spec`);
  const found = (errors as unknown as Record<string, ErrorClass | undefined>)[spec.js];
  assert.ok(found, `errors.ts has no ${spec.js}`);
  return found;
}

function map(status: string, reason: string | null, cacheCall: boolean): errors.CacheError {
  const code = Status[status as keyof typeof Status];
  const trailers: Record<string, string> = reason === null ? {} : { err: reason };
  return errors.errorFromStatus(new StatusError(code, 'from the spec test', trailers), {
    call: 'Get',
    deadlineMs: 5000,
    target: 't',
    cacheCall,
  });
}

describe('sdk/spec.json: errors', () => {
  for (const spec of SPEC.errors.classes) {
    test(`${spec.name}: its class, parent and exports`, () => {
      const cls = errorClass(spec.name);
      assert.equal(cls.name, spec.js);
      assert.equal(Object.getPrototypeOf(cls), spec.parent === null ? Error : errorClass(spec.parent));
      assert.equal((index as unknown as Record<string, unknown>)[spec.js], cls);
    });

    for (const status of spec.statuses.filter((name) => name !== 'NOT_FOUND')) {
      test(`${status} -> ${spec.name}`, () => {
        for (const cacheCall of [false, true]) {
          const err = map(status, null, cacheCall);
          assert.equal(err.constructor, errorClass(spec.name));
          assert.equal(err.status, status);
        }
      });
    }
  }

  for (const spec of SPEC.errors.not_found) {
    test(`NOT_FOUND with reason ${spec.reason}, cache call ${spec.cache_call} -> ${spec.class}`, () => {
      assert.equal(map('NOT_FOUND', spec.reason, spec.cache_call).constructor, errorClass(spec.class));
    });
  }

  test('every status and every exported error class is in the spec', () => {
    const listed = SPEC.errors.classes.flatMap((spec) => spec.statuses);
    const all = Object.values(Status).filter((code) => code !== Status.OK).map(statusName);
    assert.deepEqual(new Set(listed), new Set(all));
    const exported = Object.entries(index)
      .filter(([, value]) => typeof value === 'function' && (value === errors.CacheError || value.prototype instanceof errors.CacheError))
      .map(([name]) => name);
    assert.deepEqual(exported.sort(), SPEC.errors.classes.map((spec) => spec.js).sort());
  });
});
