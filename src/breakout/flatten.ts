/**
 * Case → rows per plan table (docs/breakout.md). Pure and on the hot path: everything that depends
 * only on the plan is computed once by `createFlattener` (flatten-layout.ts); per case the walk
 * only indexes arrays, allocates the rows it returns, and allocates warnings when a value is bad.
 *
 * Rules: `occ` is the 1-based position of the record occurrence inside its level node (the
 * case for level 1), restarting for every case and node; level-N nodes are numbered the same
 * way and their numbers form the level path (plan.ts). Values: numbers stay numbers; a blank
 * (key absent, `null`, `""`, or `"NOTAPPL"`) is NULL; numeric text is read as a number; an
 * unmapped special (`"MISSING"`, `"REFUSED"`, `"DEFAULT"`, or CSPro's internal 1e50-range
 * doubles), any other non-number, a fraction in an integer item, or a number too large for the
 * column is NULL plus a warning. Alpha: strings as they are, a number as its text, a string
 * longer than the item is truncated with a warning. Binary items: their descriptor as JSON text.
 * Every text (alpha, label, case key, notes) goes through targetText: a lone surrogate becomes
 * U+FFFD and NUL is dropped, with a warning, so every target holds the same text (target-text.ts).
 */
import type { BreakoutPlan, CellValue, Row } from './plan-model.js';
import type { Dictionary } from '../cspro/dictionary/model.js';
import type { CaseNote } from '../cspro/case/model.js';
import { AppError } from '../shared/errors.js';
import type { FlatCase, Flatten, FlattenEach, FlattenInput, FlattenWarning, RowSink } from './flatten-types.js';
import { targetText, targetTextChange } from './target-text.js';
import {
  buildLayout,
  KIND_ALPHA,
  KIND_DECIMAL,
  KIND_INTEGER,
  MAIN_LEAD,
  type FlattenLayout,
  type ItemSlot,
  type LevelLayout,
  type RecordLayout,
} from './flatten-layout.js';

export type { Flatten, FlattenEach, FlattenInput, FlattenWarning, RowSink } from './flatten-types.js';

/**
 * Makes the flattener of `plan`, which must have been planned from `dict` (checked: INTERNAL
 * otherwise). The returned function is synchronous and reusable for any number of cases; it
 * throws BRK-003 only for a case whose level-1 data is not an object or whose times are unreadable.
 */
export function createFlattener(plan: BreakoutPlan, dict: Dictionary): Flatten {
  const walker = new CaseWalker(buildLayout(plan, dict));
  return (input) => walker.flatten(input);
}

/**
 * Like createFlattener, but each row goes to `emit` as soon as it is made instead of into arrays
 * kept for the case: a caller that writes rows out at once (the breakout into a text bulk path)
 * allocates no array per row. A row handed to `emit` is reused for the next row of the same table,
 * so `emit` must be done with it when it returns. Returns the case's warnings. A case that throws
 * (BRK-003) throws before its first row is emitted.
 */
export function createEmittingFlattener(plan: BreakoutPlan, dict: Dictionary): FlattenEach {
  const walker = new CaseWalker(buildLayout(plan, dict));
  return (input, emit) => walker.flattenEach(input, emit);
}

type Node = Record<string, unknown>;

/** Plain JSON object (not an array, not null). */
function isObject(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const NUMERIC_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
/** CSPro's internal NOTAPPL; the other specials are 1e50 (MISSING), 1e52 (DEFAULT), 1e55 (REFUSED). */
const CSPRO_NOTAPPL = 1e51;
const CSPRO_SPECIAL_MIN = 1e50;
/** Warning item names of the texts that are not dictionary items (in parentheses: no item is named so). */
const LABEL_ITEM = '(case label)';
const CASE_KEY_ITEM = '(case key)';
const NOTE_ITEM = '(note)';

/**
 * Walks one case at a time. Per-case state lives in fields rather than closures so the inner
 * loops are plain method calls on one monomorphic object.
 */
class CaseWalker {
  private caseId = '';
  private warnings: FlattenWarning[] = [];
  private rows: Row[][] = [];
  /** Where rows go as they are made (flattenEach), and the one row per table it reuses. */
  private emit: RowSink | undefined = undefined;
  private readonly scratch: Row[] = [];
  /** Occurrences of the level-2 … level-N nodes above the current position. */
  private readonly path: number[] = [];

  constructor(private readonly layout: FlattenLayout) {}

  flatten(input: FlattenInput): FlatCase {
    const rows: Row[][] = new Array(this.layout.tableCount);
    for (let i = 0; i < rows.length; i++) rows[i] = [];
    return { rows, warnings: this.walk(input, rows) };
  }

  flattenEach(input: FlattenInput, emit: RowSink): FlattenWarning[] {
    this.emit = emit;
    try {
      return this.walk(input, []);
    } finally {
      this.emit = undefined;
    }
  }

  /** Walks one case into `rows` (or to `emit`); returns its warnings. */
  private walk(input: FlattenInput, rows: Row[][]): FlattenWarning[] {
    const layout = this.layout;
    const warnings: FlattenWarning[] = [];
    const level1: unknown = input.level1;
    if (!isObject(level1)) {
      throw new AppError('BRK-003', `Case ${input.id} cannot be broken out: its level-1 data is not an object`, { case: input.id });
    }
    this.caseId = input.id;
    this.warnings = warnings;
    this.rows = rows;
    this.path.length = 0;
    try {
      const root = layout.root;
      const main = this.newRow(layout.mainIndex, root.width);
      main[0] = input.id;
      main[1] = this.text(input.caseids, CASE_KEY_ITEM, 0, undefined, 0);
      main[2] = input.label === '' ? null : this.text(input.label, LABEL_ITEM, 0, undefined, 0);
      let c = this.fillItems(main, MAIN_LEAD, level1.id, root.ids, undefined, 0);
      main[c++] = input.verified === true;
      main[c++] = input.revision;
      main[c++] = this.caseTime(input.modifiedTime, 'modified time');
      main[c] = this.caseTime(input.breakoutTime, 'breakout time');
      this.put(layout.mainIndex, main);
      this.walkLevel(root, level1);
      if (input.notes) this.noteRows(input.notes, layout.notesIndex);
    } finally {
      // Do not keep the last case's rows alive between calls.
      this.rows = [];
      this.warnings = [];
    }
    return warnings;
  }

  /** A row to fill for table `t`: the table's reused row when rows are emitted, else a new one. */
  private newRow(t: number, width: number): Row {
    if (this.emit === undefined) return new Array(width);
    return (this.scratch[t] ??= new Array(width));
  }

  /** Hands a filled row over: to `emit`, or into the case's rows of table `t`. */
  private put(t: number, row: Row): void {
    if (this.emit === undefined) this.rows[t]!.push(row);
    else this.emit(t, row);
  }

  /** Rows of the records of one level node, then of its child nodes (depth first). */
  private walkLevel(level: LevelLayout, node: Node): void {
    const records = level.records;
    for (let r = 0; r < records.length; r++) {
      const rec = records[r]!;
      const v = node[rec.name];
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) this.recordRow(rec, v[i], i + 1);
      } else {
        this.recordRow(rec, v, 1);
      }
    }
    const child = level.child;
    if (child === null) return;
    const kids = node[level.childKey];
    if (kids === undefined || kids === null) return;
    if (!Array.isArray(kids)) {
      this.warn(undefined, level.childKey, 0, 0, shown(kids), 'level nodes are not an array; ignored');
      return;
    }
    const path = this.path;
    for (let i = 0; i < kids.length; i++) {
      const kid: unknown = kids[i];
      path.push(i + 1);
      if (isObject(kid)) {
        const row = this.newRow(child.tableIndex, child.width);
        row[0] = this.caseId;
        for (let p = 0; p < path.length; p++) row[1 + p] = path[p]!;
        this.fillItems(row, child.idOffset, kid.id, child.ids, undefined, 0);
        this.put(child.tableIndex, row);
        this.walkLevel(child, kid);
      } else {
        this.warn(undefined, level.childKey, 0, 0, shown(kid), 'level node is not an object; ignored');
      }
      path.pop();
    }
  }

  private recordRow(rec: RecordLayout, obj: unknown, occ: number): void {
    if (!isObject(obj)) {
      this.warn(rec.name, rec.name, 0, occ, shown(obj), 'record occurrence is not an object; ignored');
      return;
    }
    const row = this.newRow(rec.tableIndex, rec.width);
    row[0] = this.caseId;
    const path = this.path;
    for (let p = 0; p < path.length; p++) row[1 + p] = path[p]!;
    row[rec.keyWidth - 1] = occ;
    this.fillItems(row, rec.keyWidth, obj, rec.slots, rec.name, occ);
    this.put(rec.tableIndex, row);
  }

  /** Fills the item columns from `offset`; returns the next column. `obj` not an object: all NULL. */
  private fillItems(row: Row, offset: number, obj: unknown, slots: ItemSlot[], record: string | undefined, occ: number): number {
    const values = isObject(obj) ? obj : undefined;
    let c = offset;
    for (let s = 0; s < slots.length; s++) {
      const slot = slots[s]!;
      const count = slot.count;
      const v = values === undefined ? undefined : values[slot.key];
      if (v === undefined || v === null) {
        for (let k = 0; k < count; k++) row[c++] = null;
      } else if (count === 1) {
        row[c++] = this.convert(v, slot, 0, record, occ);
      } else if (Array.isArray(v)) {
        const n = v.length < count ? v.length : count;
        let k = 0;
        for (; k < n; k++) row[c++] = this.convert(v[k], slot, k + 1, record, occ);
        for (; k < count; k++) row[c++] = null;
        if (v.length > count) {
          this.warn(
            record,
            slot.key,
            0,
            occ,
            String(v.length),
            `more occurrences than the dictionary allows (${count}); the extra ones are ignored`,
          );
        }
      } else {
        // A repeating item given as a single value: its first occurrence.
        row[c++] = this.convert(v, slot, 1, record, occ);
        for (let k = 1; k < count; k++) row[c++] = null;
      }
    }
    return c;
  }

  /** One value for one column; `k` is the item occurrence (0 for a non-repeating item). */
  private convert(v: unknown, slot: ItemSlot, k: number, record: string | undefined, occ: number): CellValue {
    switch (slot.kind) {
      case KIND_INTEGER:
        if (typeof v === 'number') {
          if (v < slot.bound && v > -slot.bound && Number.isInteger(v)) return v;
          return this.badNumber(v, slot, k, record, occ);
        }
        return this.numericText(v, slot, k, record, occ);
      case KIND_DECIMAL:
        if (typeof v === 'number') {
          if (v < slot.bound && v > -slot.bound) return v;
          return this.badNumber(v, slot, k, record, occ);
        }
        return this.numericText(v, slot, k, record, occ);
      case KIND_ALPHA:
        if (typeof v === 'string') {
          const t = this.text(v, slot.key, k, record, occ);
          if (t.length <= slot.bound) return t === '' ? null : t;
          return this.longText(t, slot, k, record, occ);
        }
        if (typeof v === 'number') return this.convert(String(v), slot, k, record, occ);
        this.warn(record, slot.key, k, occ, shown(v), 'not text');
        return null;
      default:
        // Binary descriptor: the JSON text the case carries, or the object re-encoded (rare).
        if (typeof v === 'string') return v === '' ? null : this.text(v, slot.key, k, record, occ);
        if (typeof v === 'object') return JSON.stringify(v);
        this.warn(record, slot.key, k, occ, shown(v), 'not a binary item descriptor');
        return null;
    }
  }

  private badNumber(v: number, slot: ItemSlot, k: number, record: string | undefined, occ: number): null {
    const size = Math.abs(v);
    if (size === CSPRO_NOTAPPL) return null;
    let reason: string;
    if (size >= CSPRO_SPECIAL_MIN) reason = 'unmapped special value';
    else if (Number.isNaN(v)) reason = 'not a number';
    else if (slot.kind === KIND_INTEGER && size < slot.bound) reason = 'not a whole number';
    else reason = `too large for the column (${slot.limitText})`;
    this.warn(record, slot.key, k, occ, String(v), reason);
    return null;
  }

  /** A non-number in a numeric item: blank, special name, numeric text, or invalid. */
  private numericText(v: unknown, slot: ItemSlot, k: number, record: string | undefined, occ: number): CellValue {
    if (typeof v === 'string') {
      const t = v.trim();
      if (t === '') return null;
      const upper = t.toUpperCase();
      if (upper === 'NOTAPPL') return null;
      if (upper === 'MISSING' || upper === 'REFUSED' || upper === 'DEFAULT') {
        this.warn(record, slot.key, k, occ, v, 'unmapped special value');
        return null;
      }
      if (NUMERIC_TEXT.test(t)) return this.convert(Number(t), slot, k, record, occ);
    }
    this.warn(record, slot.key, k, occ, shown(v), 'not a number');
    return null;
  }

  /** Alpha longer than the item (lengths in characters, i.e. code points): truncated. */
  private longText(v: string, slot: ItemSlot, k: number, record: string | undefined, occ: number): string {
    const chars = Array.from(v);
    if (chars.length <= slot.bound) return v;
    this.warn(record, slot.key, k, occ, v, `longer than the item (${slot.limitText}); truncated`);
    return chars.slice(0, slot.bound).join('');
  }

  private noteRows(notes: readonly CaseNote[], t: number): void {
    for (let i = 0; i < notes.length; i++) {
      const note = notes[i]!;
      const f = note.field;
      const time = toInstant(note.modifiedTime);
      if (time === null)
        this.warn(undefined, f.name, 0, 0, String(note.modifiedTime), `note ${i + 1} has an unreadable modified time; written as NULL`);
      this.put(t, [
        this.caseId,
        i + 1,
        f.name,
        f.levelKey,
        f.recordOccurrence,
        f.itemOccurrence,
        f.subitemOccurrence,
        this.text(note.content, `${NOTE_ITEM} ${i + 1}`, 0, undefined, 0),
        this.text(note.operatorId, `${NOTE_ITEM} ${i + 1}`, 0, undefined, 0),
        time,
      ]);
    }
  }

  /** A text as every target stores it (target-text.ts); a changed value is warned about. */
  private text(v: string, item: string, k: number, record: string | undefined, occ: number): string {
    const t = targetText(v);
    if (t !== v) this.warn(record, item, k, occ, JSON.stringify(v), targetTextChange(v)!);
    return t;
  }

  private caseTime(value: string, what: string): string {
    const t = toInstant(value);
    if (t === null) {
      throw new AppError('BRK-003', `Case ${this.caseId} cannot be broken out: its ${what} "${value}" is not a date and time`, {
        case: this.caseId,
      });
    }
    return t;
  }

  /** Records a warning; `k` > 0 names the item occurrence, `occ` > 0 the record occurrence. */
  private warn(record: string | undefined, item: string, k: number, occ: number, value: string, reason: string): void {
    const w: FlattenWarning = { case: this.caseId, item: k > 0 ? `${item}(${k})` : item, value, reason };
    if (record !== undefined) w.record = record;
    if (occ > 0) w.occurrence = occ;
    if (this.path.length > 0) w.levelPath = this.path.slice();
    this.warnings.push(w);
  }
}

/**
 * An instant as `YYYY-MM-DDTHH:MM:SS.sssZ` (the plan's timestamp row format), or null when it
 * cannot be read. Strings already in that form pass without parsing.
 */
function toInstant(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (
    value.length === 24 &&
    value.charCodeAt(23) === 90 /* Z */ &&
    value.charCodeAt(19) === 46 /* . */ &&
    value.charCodeAt(10) === 84 /* T */
  ) {
    return value;
  }
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** A bad value as warning text. */
function shown(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
