/**
 * The fixed-width record lines of one case → the case model's level tree (docs/cspro-formats.md#dat-files, after
 * CSPro's TextToCaseConverter): the record type picks the record (the dictionary value padded to
 * the record-type length, compared exactly); a line attaches to the level node whose full key
 * (ids of levels 2..L) matches, a new key creates a node; records come out in dictionary order
 * whatever the line order; occurrences beyond maxOccurrences are dropped with a warning.
 *
 * What makes the case unreadable (thrown as CASE_INVALID with line/record/item details): a record
 * type that matches no record, and a numeric id that is not a number. A line that ends inside the
 * record-type/id area is read as if padded with blanks, as CSPro pads a short line before it
 * reads the ids: a trimmed blank id item is a `blank-id` warning, not a failure. Blank lines and
 * `~` erased lines are skipped.
 */

import type { DictLevel, DictRecord, Dictionary } from '../dictionary/model.js';
import { caseError, type CaseWarning } from './case-result.js';
import { lineKeyText } from './case-key.js';
import { fieldText, readRecordItems, type InvalidField } from './item-codec.js';
import { levelKey, type LevelObject, type RecordObject } from './model.js';
import { decodeNumericText } from './numeric-text.js';

/** One record line and, when known, its 1-based line number in the source file. */
/** Start of the message of a line whose record type the dictionary does not have (import-cases checks it). */
export const UNKNOWN_RECORD_TYPE = 'unknown record type';

export interface TextLine {
  text: string;
  line?: number;
}

/** Precomputed per-dictionary facts for reading lines (cached). */
interface TextLayout {
  typeStart: number;
  typeLength: number;
  /** Exact record-type text → record and its 0-based level. */
  byType: Map<string, { record: DictRecord; level: number }>;
  /** For a dictionary without record type: its only record. */
  single?: { record: DictRecord; level: number };
}

const layoutCache = new WeakMap<Dictionary, TextLayout>();

function textLayout(dict: Dictionary): TextLayout {
  const cached = layoutCache.get(dict);
  if (cached) return cached;
  const typeLength = dict.recordType.length;
  const typeStart = Math.max(0, dict.recordType.start - 1);
  const byType = new Map<string, { record: DictRecord; level: number }>();
  let single: { record: DictRecord; level: number } | undefined;
  dict.levels.forEach((level, index) => {
    for (const record of level.records) {
      if (typeLength > 0) {
        const type = record.recordType.padEnd(typeLength, ' ').slice(0, typeLength);
        // The first record wins on a duplicate type, as in CSPro's lookup.
        if (!byType.has(type)) byType.set(type, { record, level: index });
      } else if (!single) {
        single = { record, level: index };
      }
    }
  });
  const layout: TextLayout = { typeStart, typeLength, byType, ...(single ? { single } : {}) };
  layoutCache.set(dict, layout);
  return layout;
}

/** A level node being built: its ids, its record occurrences by record name, its children. */
interface LevelNode {
  level: DictLevel;
  depth: number;
  id: RecordObject;
  records: Map<string, RecordObject[]>;
  children: LevelNode[];
}

function newNode(dict: Dictionary, depth: number, id: RecordObject): LevelNode {
  return { level: dict.levels[depth] as DictLevel, depth, id, records: new Map(), children: [] };
}

/** Reads a level's ids from a line; a numeric id that is not a number makes the case unreadable. */
function readIds(level: DictLevel, text: string, line: number | undefined, warnings: CaseWarning[]): RecordObject {
  for (const item of level.ids) {
    if (item.contentType !== 'numeric' || item.subitem) continue;
    const field = fieldText(text, item.start - 1, item.length);
    const value = decodeNumericText(field, item.decimals);
    if (value === 'DEFAULT') {
      throw caseError(`id item ${item.name} is not a number: ${JSON.stringify(field)}`, {
        ...(line !== undefined ? { line } : {}),
        item: item.name,
      });
    }
  }
  const id = readRecordItems(text, level.ids);
  for (const item of level.ids) {
    if (!item.subitem && id[item.name] === undefined) {
      warnings.push({
        kind: 'blank-id',
        message: `id item ${item.name} is blank`,
        item: item.name,
        ...(line !== undefined ? { line } : {}),
      });
    }
  }
  return id;
}

function materialize(dict: Dictionary, node: LevelNode): LevelObject {
  const out: LevelObject = { id: node.id };
  for (const record of node.level.records) {
    const occurrences = node.records.get(record.name);
    if (!occurrences || occurrences.length === 0) continue;
    out[record.name] = record.maxOccurrences > 1 ? occurrences : (occurrences[0] as RecordObject);
  }
  if (node.children.length > 0) out[levelKey(node.depth + 2)] = node.children.map((child) => materialize(dict, child));
  return out;
}

/** The result of reading one case's lines. */
export interface TextCase {
  level1: LevelObject;
  warnings: CaseWarning[];
}

/**
 * Builds the `level-1` tree of one case from its record lines (all sharing the level-1 key).
 * Throws CASE_INVALID (details: line, record, item) when the case cannot be read; see the file
 * comment for what that is. A case with no usable line at all is also unreadable.
 */
export function textToCase(dict: Dictionary, lines: readonly (TextLine | string)[]): TextCase {
  const layout = textLayout(dict);
  const warnings: CaseWarning[] = [];
  let root: LevelNode | undefined;
  // Level nodes below level 1 by their key text (ids of levels 2..L), like GetCaseLevelFromKey.
  const nodesByKey = new Map<string, LevelNode>();

  for (const entry of lines) {
    const { text, line } = typeof entry === 'string' ? { text: entry, line: undefined } : entry;
    if (text.trim() === '' || text.startsWith('~')) continue;
    const at = line !== undefined ? { line } : {};

    let found: { record: DictRecord; level: number } | undefined;
    if (layout.typeLength > 0) {
      const type = fieldText(text, layout.typeStart, layout.typeLength);
      found = layout.byType.get(type);
      if (!found) throw caseError(`${UNKNOWN_RECORD_TYPE} ${JSON.stringify(type)}`, { ...at, record: type });
    } else {
      found = layout.single;
      if (!found) throw caseError('the dictionary has no record', at);
    }
    const { record, level } = found;
    // A line trimmed into the id area needs no padding here: fieldText reads the columns past
    // the end of a line as blanks, which is what CSPro's padding amounts to.

    root ??= newNode(dict, 0, readIds(dict.levels[0] as DictLevel, text, line, warnings));
    let node = root;
    for (let depth = 1; depth <= level; depth++) {
      // The key of levels 2..depth; the level-1 part is the same on every line of the case.
      const key = lineKeyText(dict, text, depth + 1).slice(lineKeyText(dict, text, 1).length);
      let child = nodesByKey.get(key);
      if (!child) {
        child = newNode(dict, depth, readIds(dict.levels[depth] as DictLevel, text, line, warnings));
        nodesByKey.set(key, child);
        node.children.push(child);
      }
      node = child;
    }

    let occurrences = node.records.get(record.name);
    if (!occurrences) node.records.set(record.name, (occurrences = []));
    if (occurrences.length >= record.maxOccurrences) {
      warnings.push({
        kind: 'too-many-records',
        message: `record ${record.name} has more than ${record.maxOccurrences} occurrences; the extra line is dropped`,
        record: record.name,
        occurrence: occurrences.length + 1,
        ...at,
      });
      continue;
    }
    const invalid: InvalidField[] = [];
    occurrences.push(readRecordItems(text, record.items, invalid));
    for (const bad of invalid) {
      warnings.push({
        kind: 'invalid-value',
        message: `item ${bad.item} holds ${JSON.stringify(bad.text)}, not a number; read as DEFAULT`,
        record: record.name,
        item: bad.item,
        occurrence: occurrences.length,
        value: bad.text,
        ...at,
      });
    }
  }

  if (!root) throw caseError('the case has no record lines');
  return { level1: materialize(dict, root), warnings };
}
