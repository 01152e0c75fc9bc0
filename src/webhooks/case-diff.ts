/**
 * The `changes` map of a `case_modified` event: item path → {old, new}. Paths follow the sync
 * JSON tree of a case (cspro/case/model.ts): `REC.ITEM` for a record that occurs once,
 * `REC[2].ITEM` for the 2nd occurrence of a repeating record, `ITEM[3]` for the 3rd occurrence
 * of a repeating item, `id.ITEM` for an id item, and `level-2[1].` before anything inside the
 * 1st node of a lower level. Occurrences count from 1. A value absent on one side (a blank item,
 * an added or removed occurrence) is null.
 */
export type ChangeMap = Record<string, { old: Scalar | null; new: Scalar | null }>;
type Scalar = string | number | boolean;

/** Every leaf value of a case's `level-1` JSON text, by path. Pure. */
function flattenCase(levelJson: string): Map<string, Scalar> {
  const out = new Map<string, Scalar>();
  walkLevel(JSON.parse(levelJson) as Record<string, unknown>, '', out);
  return out;
}

function walkLevel(level: Record<string, unknown>, prefix: string, out: Map<string, Scalar>): void {
  for (const [key, value] of Object.entries(level)) {
    if (Array.isArray(value)) {
      value.forEach((occ, i) => {
        if (occ !== null && typeof occ === 'object' && !Array.isArray(occ)) {
          const at = `${prefix}${key}[${i + 1}]`;
          if (key.startsWith('level-')) walkLevel(occ as Record<string, unknown>, `${at}.`, out);
          else walkRecord(occ as Record<string, unknown>, at, out);
        }
      });
    } else if (value !== null && typeof value === 'object') {
      walkRecord(value as Record<string, unknown>, `${prefix}${key}`, out);
    }
  }
}

function walkRecord(rec: Record<string, unknown>, at: string, out: Map<string, Scalar>): void {
  for (const [item, value] of Object.entries(rec)) {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        if (isScalar(v) && v !== '') out.set(`${at}.${item}[${i + 1}]`, v);
      });
    } else if (isScalar(value) && value !== '') {
      out.set(`${at}.${item}`, value);
    }
  }
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** Occurrence numbers compare as numbers: PERSON[2] before PERSON[10]. */
const byPath = new Intl.Collator('en', { numeric: true });

/** The items whose value differs between two versions of a case, in path order. Pure. */
export function diffCase(oldJson: string, newJson: string): ChangeMap {
  if (oldJson === newJson) return {};
  const before = flattenCase(oldJson);
  const after = flattenCase(newJson);
  const paths = new Set([...before.keys(), ...after.keys()]);
  const changes: ChangeMap = {};
  for (const p of [...paths].sort(byPath.compare)) {
    const o = before.get(p) ?? null;
    const n = after.get(p) ?? null;
    if (o !== n) changes[p] = { old: o, new: n };
  }
  return changes;
}
