// What maxConcurrentRequests 'auto' adds per call in the TypeScript SDK,
// without I/O. A call's path through the cap, as the CallRunner takes it: a
// fixed cap's is tryAcquire() and release(); auto's adds performance.now()
// when the slot is held and at the answer, and release() hands the time to
// the AdaptiveLimit (a window closes every ~IN_FLIGHT calls and sorts them).
// IN_FLIGHT calls are held at once, so the limit has room to move. Needs the
// built SDK (make build-js); run through bench/adaptive/run.sh overhead (or
// directly); prints ns per call, best of ROUNDS.
import { AdaptiveLimit } from '../../sdk/js/dist/adaptive-limit.js';
import { AdaptiveLimiter, Limiter } from '../../sdk/js/dist/limiter.js';

const CALLS = 2_000_000;
const ROUNDS = 5;
const IN_FLIGHT = 25;

function fixed(limiter) {
  let held = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) {
    if (held === IN_FLIGHT) {
      limiter.release();
      held -= 1;
    }
    limiter.tryAcquire();
    held += 1;
  }
  return Number(process.hrtime.bigint() - started) / CALLS;
}

function adaptive(limiter) {
  const sent = new Float64Array(IN_FLIGHT);
  let head = 0;
  let held = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) {
    while (held >= Math.min(IN_FLIGHT, limiter.cap)) {
      limiter.release(performance.now() - sent[head]);
      head = (head + 1) % IN_FLIGHT;
      held -= 1;
    }
    if (limiter.tryAcquire()) {
      sent[(head + held) % IN_FLIGHT] = performance.now();
      held += 1;
    }
  }
  return Number(process.hrtime.bigint() - started) / CALLS;
}

const best = (run) => Math.min(...Array.from({ length: ROUNDS }, run));
const fixedNs = best(() => fixed(new Limiter(IN_FLIGHT)));
const autoNs = best(() => adaptive(new AdaptiveLimiter(new AdaptiveLimit(100))));
console.log(`Node, ns per call through the cap (best of ${ROUNDS} x ${CALLS.toLocaleString('en')} calls)`);
console.log(`  fixed cap          ${fixedNs.toFixed(0).padStart(8)}`);
console.log(`  auto               ${autoNs.toFixed(0).padStart(8)}`);
console.log(`  auto adds ${(autoNs - fixedNs).toFixed(0)} ns a call`);
