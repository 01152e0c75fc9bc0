/**
 * The value sets and items of a CSPro JSON dictionary read straight from the file with
 * JSON.parse, not with our parser: what the label tables of a breakout must hold
 * (docs/breakout.md#value-sets-and-item-labels).
 */
import { readFileSync } from 'node:fs';

interface RawLabel {
  text: string;
}
interface RawPair {
  value?: string | number;
  range?: [string | number, string | number];
}
interface RawValue {
  labels: RawLabel[];
  pairs?: RawPair[];
  special?: string;
}
interface RawValueSet {
  name: string;
  labels: RawLabel[];
  /** Absent on later members of a link group: CSPro 8 writes the shared values once. */
  values?: RawValue[];
  link?: string;
}
interface RawItem {
  name: string;
  labels: RawLabel[];
  contentType?: string;
  length: number;
  decimals?: number;
  occurrences?: { maximum?: number } | number;
  valueSets?: RawValueSet[];
}
interface RawRecord {
  name: string;
  items: RawItem[];
}
interface RawDictionary {
  levels: { ids: { items: RawItem[] }; records: RawRecord[] }[];
}

/** One expected row of the value sets table. */
export interface ExpectedValue {
  item: string;
  valueSetOrder: number;
  valueOrder: number;
  pairOrder: number;
  valueSetName: string;
  valueSetLabel: string;
  from: string;
  to: string | null;
  fromNum: number | null;
  toNum: number | null;
  label: string;
  special: string | null;
}

export interface ExpectedItem {
  name: string;
  label: string;
  record: string | null;
  contentType: string;
  length: number;
  decimals: number;
  valueSet: string | null;
}

function readRaw(path: string): RawDictionary {
  return JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as RawDictionary;
}

function allItems(raw: RawDictionary): { item: RawItem; record: string | null }[] {
  return raw.levels.flatMap((l) => [
    ...l.ids.items.map((item) => ({ item, record: null })),
    ...l.records.flatMap((r) => r.items.map((item) => ({ item, record: r.name }))),
  ]);
}

const text = (labels: RawLabel[] | undefined): string => labels?.[0]?.text ?? '';

/** Every pair of every value of every value set, in dictionary order. */
export function rawValueRows(path: string): ExpectedValue[] {
  const out: ExpectedValue[] = [];
  const items = allItems(readRaw(path));
  const linked = new Map<string, RawValue[]>();
  for (const { item } of items) for (const vs of item.valueSets ?? []) if (vs.link && vs.values) linked.set(vs.link, vs.values);
  for (const { item } of items) {
    const numeric = (item.contentType ?? 'numeric') === 'numeric';
    (item.valueSets ?? []).forEach((vs, s) => {
      (vs.values ?? (vs.link ? linked.get(vs.link) : undefined) ?? []).forEach((v, i) => {
        (v.pairs ?? []).forEach((p, k) => {
          const from = String(p.range ? p.range[0] : (p.value ?? '')).trimEnd();
          const to = p.range ? String(p.range[1]).trimEnd() : null;
          const num = (t: string | null) => (numeric && t !== null && t.trim() !== '' ? Number(t) : null);
          out.push({
            item: item.name,
            valueSetOrder: s + 1,
            valueOrder: i + 1,
            pairOrder: k + 1,
            valueSetName: vs.name,
            valueSetLabel: text(vs.labels),
            from,
            to,
            fromNum: num(from),
            toNum: to === null ? num(from) : num(to),
            label: text(v.labels),
            special: v.special ? v.special.toUpperCase() : null,
          });
        });
      });
    });
  }
  return out;
}

/** Every item of the dictionary with what the items table says of it. */
export function rawItems(path: string): Map<string, ExpectedItem> {
  const out = new Map<string, ExpectedItem>();
  for (const { item, record } of allItems(readRaw(path))) {
    out.set(item.name, {
      name: item.name,
      label: text(item.labels),
      record,
      contentType: item.contentType ?? 'numeric',
      length: item.length,
      decimals: item.decimals ?? 0,
      valueSet: item.valueSets?.[0]?.name ?? null,
    });
  }
  return out;
}
