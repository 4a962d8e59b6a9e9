// One object that hands each property read to the next of several targets.
//
// Over a shared store (the Redis Cluster backend) every jiffy-server must
// read what another one wrote. The cases each talk to one client; giving
// them this proxy over one client per front-end puts consecutive calls on
// different front-ends, so a write through one is read through another
// without rewriting a case.

/**
 * One target as it is; several behind a Proxy used as if it were one.
 * @template {object} T
 * @param {T[]} targets
 * @returns {T}
 */
export function roundRobin(targets) {
  if (targets.length === 0) throw new Error('roundRobin needs at least one target');
  if (targets.length === 1) return targets[0];
  let turn = 0;
  // The first target stands behind the Proxy so that `instanceof` still holds.
  return new Proxy(targets[0], {
    get(_first, property) {
      const target = targets[turn++ % targets.length];
      const value = Reflect.get(target, property, target);
      // Bound, so the method runs on the client it came from, not on the Proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
