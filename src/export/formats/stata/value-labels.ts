/**
 * Value labels (docs/export.md#stata): which codes of a value set become a Stata value label, and
 * the `<value_labels>` section that holds them. Stata labels single integer values of numeric
 * variables only: string value sets, non-integer codes and ranges of more than one value stay in
 * the codebook. CSPro special values are labelled on their extended missing value (`.a`…). Pure.
 */
import { labellingPart } from '../../value-sets.js';
import { LONG_RANGE, missingLabelValue } from './missing-values.js';
import { utf8Limited } from './text.js';
import type { StataVariable } from './variables.js';

/** Longest text of one value label, in bytes without its NUL (the format's limit). */
const MAX_VALUE_LABEL_BYTES = 32_000;

export interface ValueLabelEntry {
  value: number;
  text: Uint8Array;
}

export interface ValueLabelTable {
  /** The label's name: the first variable's name (valid and unique already). */
  name: string;
  entries: ValueLabelEntry[];
}

export interface ValueLabelPlan {
  tables: ValueLabelTable[];
  /** Per variable, the name of its value label or '' for none. */
  names: string[];
}

/** The entries of a variable's value label; a blank label is left out, as it would hide the code. */
function entriesOf(variable: StataVariable): ValueLabelEntry[] {
  const set = labellingPart(variable.column.valueSet);
  if (!set || !set.numeric || (variable.cell !== 'integer' && variable.cell !== 'decimal')) return [];
  const byValue = new Map<number, string>();
  const add = (value: number, label: string): void => {
    if (!byValue.has(value)) byValue.set(value, label);
  };
  for (const v of set.values) {
    if (typeof v.value !== 'number') continue;
    const letter = variable.specials.get(v.value);
    if (letter !== undefined) add(missingLabelValue(letter), v.label);
    else if (Number.isInteger(v.value) && v.value >= LONG_RANGE.min && v.value <= LONG_RANGE.max) add(v.value, v.label);
  }
  // A range of one value is a single code; wider ranges are left to the codebook (a label on
  // every age from 0 to 120 would hide the ages themselves in Stata's tables).
  for (const r of set.ranges) {
    if (r.from === r.to && Number.isInteger(r.from) && r.from >= LONG_RANGE.min && r.from <= LONG_RANGE.max) {
      if (!variable.specials.has(r.from)) add(r.from, r.label);
    }
  }
  return [...byValue]
    .sort((a, b) => a[0] - b[0])
    .map(([value, label]) => ({ value, text: utf8Limited(label, Number.MAX_SAFE_INTEGER, MAX_VALUE_LABEL_BYTES) }));
}

function sameEntries(a: ValueLabelEntry[], b: ValueLabelEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.value === b[i]?.value && Buffer.from(e.text).equals(Buffer.from(b[i]?.text ?? [])));
}

/**
 * One value label per value set: variables with the same value set and the same entries (the
 * occurrences of a repeating item) share the label of the first.
 */
export function planValueLabels(variables: readonly StataVariable[]): ValueLabelPlan {
  const tables: ValueLabelTable[] = [];
  const bySet = new Map<string, ValueLabelTable[]>();
  const names = variables.map((variable) => {
    const entries = entriesOf(variable);
    if (entries.length === 0) return '';
    const setName = variable.column.valueSet?.name ?? '';
    const candidates = bySet.get(setName) ?? [];
    const shared = candidates.find((t) => sameEntries(t.entries, entries));
    if (shared) return shared.name;
    const table = { name: variable.column.name, entries };
    tables.push(table);
    bySet.set(setName, [...candidates, table]);
    return table.name;
  });
  return { tables, names };
}

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');

/** One `<lbl>…</lbl>` definition. */
export function encodeValueLabelTable(table: ValueLabelTable): Buffer {
  const n = table.entries.length;
  const txtlen = table.entries.reduce((sum, e) => sum + e.text.length + 1, 0);
  const len = 8 + 8 * n + txtlen;
  const body = Buffer.alloc(4 + 129 + 3 + len);
  body.writeInt32LE(len, 0);
  body.write(table.name, 4, 128, 'utf8');
  let at = 136;
  body.writeInt32LE(n, at);
  body.writeInt32LE(txtlen, at + 4);
  at += 8;
  let off = 0;
  const txtStart = at + 8 * n;
  table.entries.forEach((e, i) => {
    body.writeInt32LE(off, at + 4 * i);
    body.writeInt32LE(e.value, at + 4 * n + 4 * i);
    body.set(e.text, txtStart + off);
    off += e.text.length + 1; // the NUL is already there: Buffer.alloc zero-fills
  });
  return Buffer.concat([ascii('<lbl>'), body, ascii('</lbl>')]);
}

/** The contents of `<value_labels>…</value_labels>` (without the two tags). */
export function encodeValueLabels(tables: readonly ValueLabelTable[]): Buffer {
  return Buffer.concat(tables.map(encodeValueLabelTable));
}
