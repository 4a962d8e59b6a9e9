// What each --workload sends (docs/LOADGEN.md, "Workloads"); the same
// definitions as the Python harness's loadgen/_workloads.py.
//
// The harness still draws, for every call, a key and whether it reads
// (--get-ratio); a workload says what reading and writing that key mean.
// - scalar: Get / Set of the key (driver.get, driver.set).
// - dictionary: a dictionary of DICTIONARY_FIELDS fields; a read is
//   DictionaryGet of one field, a write DictionarySet of one, the field
//   picked at random (dictionaryGet, dictionarySet).
// - list: a read is ListFetch of the whole list, a write ListPushBack that
//   keeps the last LIST_KEEP values (listFetch, listPushBack).
// - sorted-set: up to SORTED_SET_MEMBERS members; a read is SortedSetFetch
//   of the SORTED_SET_TOP highest by rank, a write SortedSetPut of one
//   member picked at random with a random score in [0, 1000)
//   (sortedSetTop, sortedSetPut). --value-size does not apply.
import type { Driver } from './harness.js';

export const WORKLOADS = ['scalar', 'dictionary', 'list', 'sorted-set'] as const;
export type Workload = (typeof WORKLOADS)[number];

export const DICTIONARY_FIELDS = 10;
export const LIST_KEEP = 20;
export const SORTED_SET_MEMBERS = 100;
export const SORTED_SET_TOP = 10;

const OPERATIONS: Record<Workload, readonly (keyof Driver)[]> = {
  scalar: ['get', 'set'],
  dictionary: ['dictionaryGet', 'dictionarySet'],
  list: ['listFetch', 'listPushBack'],
  'sorted-set': ['sortedSetTop', 'sortedSetPut'],
};

export function isWorkload(name: string): name is Workload {
  return (WORKLOADS as readonly string[]).includes(name);
}

/** Key `index` of a workload: each has keys of its own, so runs of several workloads into one cache never meet an item of another type. */
export function keyName(workload: Workload, index: number): string {
  return workload === 'scalar' ? `key-${index}` : `key-${workload}-${index}`;
}

/** The driver methods `workload` needs that `driver` lacks. */
export function missingOperations(driver: Driver, workload: Workload): string[] {
  return OPERATIONS[workload].filter((name) => typeof driver[name] !== 'function');
}

export interface Operations {
  read: (key: string) => Promise<unknown>;
  write: (key: string, value: Uint8Array) => Promise<unknown>;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const names = (prefix: string, count: number): string[] => Array.from({ length: count }, (_unused, i) => `${prefix}-${i}`);

/** read(key) and write(key, value) for `workload` (after missingOperations found none missing). */
export function operations(driver: Driver, workload: Workload): Operations {
  const need = <K extends keyof Driver>(name: K): NonNullable<Driver[K]> => {
    const method = driver[name];
    if (typeof method !== 'function') throw new Error(`${driver.sdk} has no ${workload} workload (no ${String(name)})`);
    return method.bind(driver) as NonNullable<Driver[K]>;
  };
  switch (workload) {
    case 'scalar':
      return { read: need('get'), write: need('set') };
    case 'dictionary': {
      const fields = names('field', DICTIONARY_FIELDS);
      const get = need('dictionaryGet');
      const set = need('dictionarySet');
      return { read: (key) => get(key, pick(fields)), write: (key, value) => set(key, pick(fields), value) };
    }
    case 'list': {
      const push = need('listPushBack');
      return { read: need('listFetch'), write: (key, value) => push(key, value, LIST_KEEP) };
    }
    case 'sorted-set': {
      const members = names('member', SORTED_SET_MEMBERS);
      const top = need('sortedSetTop');
      const put = need('sortedSetPut');
      return { read: (key) => top(key, SORTED_SET_TOP), write: (key) => put(key, pick(members), Math.random() * 1000) };
    }
  }
}
