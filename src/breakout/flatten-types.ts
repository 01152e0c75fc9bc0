/** Input and output of the flattener (flatten.ts): one stored case in, rows per plan table out. */
import type { Row } from './plan-model.js';
import type { CaseNote, LevelObject } from '../cspro/case/model.js';

/** One case as the breakout reads it from the store. */
export interface FlattenInput {
  /** Case GUID, lower case with dashes. */
  id: string;
  /** Case key (the level-1 id items' text), as stored. */
  caseids: string;
  /** Case label; `''` when the case has none (written as NULL). */
  label: string;
  verified: boolean;
  /** Store revision of the case's last change. */
  revision: number;
  /** ISO 8601 / RFC 3339 instants; written as `YYYY-MM-DDTHH:MM:SS.sssZ`. */
  modifiedTime: string;
  breakoutTime: string;
  level1: LevelObject;
  notes: CaseNote[];
}

/** A value that could not be written as it is (it became NULL or was truncated). */
export interface FlattenWarning {
  /** Case GUID. */
  case: string;
  /** Record name; absent for id items. */
  record?: string;
  /** Item name, with `(k)` for occurrence k of a repeating item (CSPro's notation). */
  item: string;
  /** 1-based occurrence of the record inside its level node (absent for id items). */
  occurrence?: number;
  /** For records and ids of levels ≥ 2: the occurrences of the level nodes from level 2 down. */
  levelPath?: number[];
  /** The offending value as text. */
  value: string;
  /** Why it was not written as it is. */
  reason: string;
}

export interface FlatCase {
  /** One array of rows per table, index = `plan.tables` index; the jobs table's is always empty. */
  rows: Row[][];
  warnings: FlattenWarning[];
}

/** Flattens one case; made once per plan by `createFlattener`. */
export type Flatten = (input: FlattenInput) => FlatCase;

/** Takes one row of plan table `table` (its index in `plan.tables`) as the flattener makes it. */
export type RowSink = (table: number, row: Row) => void;

/** Flattens one case row by row into a sink; returns its warnings (`createEmittingFlattener`). */
export type FlattenEach = (input: FlattenInput, emit: RowSink) => FlattenWarning[];
