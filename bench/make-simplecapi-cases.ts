// Synthetic SIMPLECAPI_DICT cases in the sync upload shape, built like the reference generator
// (`shared/tools/gen-cases.py`, with which CSWeb's 4,000 cases/s upload figure was measured):
// about 5 persons and one housing record per case, `level-1` as a compact JSON string, one
// clock entry. Same distributions, not the same random stream: a seeded xorshift instead of
// Python's Mersenne Twister, so the cases are alike in size and shape, not byte for byte.

import { createHash } from 'node:crypto';

const FIRST = [
  'Amina',
  'John',
  'Maria',
  'Wei',
  'Fatima',
  'Carlos',
  'Olga',
  'Kofi',
  'Priya',
  'Ahmed',
  'Sofia',
  'Jean',
  'Yuki',
  'Ivan',
  'Grace',
  'Omar',
  'Lena',
  'Tariq',
  'Ana',
  'Samuel',
];
const LAST = [
  'Okafor',
  'Smith',
  'Garcia',
  'Chen',
  'Haddad',
  'Silva',
  'Petrova',
  'Mensah',
  'Patel',
  'Hassan',
  'Rossi',
  'Dupont',
  'Tanaka',
  'Ivanov',
  'Mwangi',
  'Nasser',
  'Berg',
  'Khan',
];

/** A small deterministic generator: xorshift32 seeded per case. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  return { int, pick };
}

export interface SyncCaseJson {
  id: string;
  caseids: string;
  label: string;
  'level-1': string;
  deleted: boolean;
  verified: boolean;
  clock: { deviceId: string; revision: number }[];
  notes: unknown[];
}

/** Case `i` (0-based) of the synthetic SIMPLECAPI_DICT series, uploaded by `device`. */
export function simplecapiCase(i: number, device: string): SyncCaseJson {
  const r = rng(12345 * 1000003 + i);
  const cluster = 1 + Math.floor(i / 999);
  const hhno = 1 + (i % 999);
  const n = r.pick([3, 4, 5, 5, 5, 6, 7]);
  const headAge = r.int(18, 80);
  const population = [];
  for (let j = 0; j < n; j++) {
    const rel = j === 0 ? 1 : j === 1 ? 2 : r.pick([3, 3, 3, 3, 4, 5, 6]);
    const age =
      rel === 1
        ? headAge
        : rel === 2
          ? Math.max(16, Math.min(99, headAge + r.int(-8, 8)))
          : rel === 3
            ? r.int(0, Math.max(0, headAge - 16))
            : rel === 4
              ? Math.min(99, headAge + r.int(16, 35))
              : r.int(0, 90);
    const sex = rel === 1 ? 1 : rel === 2 ? 2 : r.pick([1, 2]);
    const rec: Record<string, string | number> = { P1: `${r.pick(FIRST)} ${r.pick(LAST)}`, P2: rel, P3: sex, P4: age };
    if (rel === 3) rec.P5 = 2;
    population.push(rec);
  }
  const checkbox = ['1', '2', '3'].filter(() => r.int(0, 1) === 1).join('') || '1';
  const level = {
    id: { CLUSTER: cluster, HHNO: hhno },
    POPULATION_REC: population,
    HOUSING_REC: { H3: r.int(1, 8), H4: r.int(1, 8), DATE_OF_SURVEY: 20240000 + r.int(1, 12) * 100 + r.int(1, 28), CHECKBOX: checkbox },
  };
  // From a hash of the case number: a 32-bit generator's streams overlap, and ids must not.
  const h = createHash('sha256').update(`simplecapi:${i}`).digest('hex');
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[r.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return {
    id,
    caseids: `${String(cluster).padStart(3, '0')}${String(hhno).padStart(3, '0')}`,
    label: '',
    'level-1': JSON.stringify(level),
    deleted: false,
    verified: false,
    clock: [{ deviceId: device, revision: 1 }],
    notes: [],
  };
}
