/**
 * A report as CSV (RFC 4180, as `sds export` writes it: docs/export.md#csv), pure: a header row of
 * the JSON reply's field names, then one line per row; a report by ids has a value column and a
 * `_name` column per id item, then `cases`. Empty fields are unknown values (no app version, no
 * area name); a text that starts like a formula (`=`, `+`, `-`, `@`) is written after a `'`.
 */
import { csvCell, csvLine } from '../../export/formats/csv/csv-text.js';
import type { SyncReport } from './sync-report.js';
import type { SyncHistoryList } from './history.js';

type Cell = string | number | null;

/** Text a spreadsheet would run as a formula (docs/supervision.md#the-reports). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell as written: a text that a spreadsheet would read as a formula gets a leading `'`, since
 * device ids, user names and area names come from the field and reports are opened in one.
 */
function safeCell(c: Cell): string {
  return csvCell(typeof c === 'string' && FORMULA_START.test(c) ? `'${c}` : c);
}

function table(head: string[], rows: Cell[][]): string {
  return csvLine(head.map((h) => csvCell(h))) + rows.map((r) => csvLine(r.map(safeCell))).join('');
}

function objectsCsv(rows: readonly object[], head: string[]): string {
  return table(
    head,
    rows.map((r) => head.map((h) => (r as Record<string, Cell>)[h] ?? null)),
  );
}

const HEADS = {
  user: [
    'user',
    'uploads',
    'cases_uploaded',
    'downloads',
    'cases_downloaded',
    'first_sync',
    'last_sync',
    'devices',
    'last_device',
    'app_version',
  ],
  device: [
    'device',
    'uploads',
    'cases_uploaded',
    'downloads',
    'cases_downloaded',
    'first_sync',
    'last_sync',
    'users',
    'last_user',
    'app_version',
  ],
  day: ['day', 'uploads', 'cases_uploaded', 'downloads', 'cases_downloaded', 'devices', 'users'],
};

/** The rows of a report's page as CSV text. */
export function reportCsv(report: SyncReport): string {
  if (report.by !== 'ids') return objectsCsv(report.rows, HEADS[report.by]);
  const head = [...report.id_items.flatMap((n) => [n, `${n}_name`]), 'cases'];
  return table(
    head,
    report.rows.map((r) => [...report.id_items.flatMap((n) => [r.ids[n] ?? null, r.names[n] ?? null]), r.cases]),
  );
}

/** A page of the sync history as CSV text. */
export function historyCsv(list: SyncHistoryList): string {
  return objectsCsv(list.data, ['id', 'created_at', 'dictionary', 'device', 'username', 'direction', 'revision', 'cases', 'universe']);
}
