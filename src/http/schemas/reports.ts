import { z } from 'zod';
import type {
  AreaNamesReply as CoreAreaNamesReply,
  SyncHistoryList as CoreHistoryList,
  SyncReport as CoreSyncReport,
} from '../../core/reports/index.js';
import type { Describes } from './same-shape.js';
import { Timestamp } from './common.js';

const Whole = z.string().regex(/^\d+$/, 'must be a whole number ≥ 0');
const time = (what: string) =>
  z
    .string()
    .optional()
    .meta({ param: { description: `${what} this ISO 8601 time or date (UTC when no zone)` }, example: '2025-03-01' });

/** Query of `GET /api/dictionaries/{name}/syncs` (docs/supervision.md#sync-history-and-reports); ranges checked by the core. */
export const SyncHistoryQuery = z.object({
  user: z
    .string()
    .optional()
    .meta({ param: { description: 'only syncs by this account' }, example: 'ana' }),
  device: z
    .string()
    .optional()
    .meta({ param: { description: 'only syncs of this device (`x-csw-device`)' }, example: 'tablet-07' }),
  direction: z
    .enum(['up', 'down', 'both'])
    .optional()
    .meta({ param: { description: '`up` uploads, `down` completed downloads, `both` (default)' }, example: 'up' }),
  since: time('only syncs at or after'),
  until: time('only syncs before'),
  limit: Whole.optional().meta({ param: { description: 'page size, 1 to 10000 (default 100)' }, example: '100' }),
  offset: Whole.optional().meta({ param: { description: 'rows to skip (default 0)' }, example: '0' }),
  cursor: Whole.optional().meta({
    param: { description: 'only syncs with an id below this one: `next_cursor` of the previous page (keyset paging)' },
    example: '4211',
  }),
  format: z
    .enum(['json', 'csv'])
    .optional()
    .meta({ param: { description: '`csv` for the page as CSV (text/csv) instead of JSON' }, example: 'csv' }),
});

/** Query of `GET /api/sync-report`: the options of `sds sync report`. */
export const SyncReportQuery = z.object({
  dictionary: z
    .string()
    .optional()
    .meta({ param: { description: 'only this dictionary (needed by `by=ids`)' }, example: 'CEN2000' }),
  by: z
    .enum(['user', 'device', 'day', 'ids'])
    .optional()
    .meta({ param: { description: 'the grouping: user (default), device, day, or ids (live cases per id values)' }, example: 'device' }),
  ids: z
    .string()
    .optional()
    .meta({ param: { description: 'with `by=ids`: the id items to group by, comma-separated' }, example: 'PROVINCE,DISTRICT' }),
  not_seen: Whole.optional().meta({
    param: { description: 'with `by=user` or `device`: only those whose last sync is more than this many days old' },
    example: '3',
  }),
  since: time('count syncs at or after'),
  until: time('count syncs before'),
  limit: Whole.optional().meta({ param: { description: 'page size, 1 to 10000 (default 100)' }, example: '100' }),
  offset: Whole.optional().meta({ param: { description: 'rows to skip (default 0)' }, example: '0' }),
  format: z
    .enum(['json', 'csv'])
    .optional()
    .meta({ param: { description: '`csv` for the rows as CSV (text/csv) instead of JSON' }, example: 'csv' }),
});

/** Query of `PUT /api/dictionaries/{name}/area-names`. */
export const AreaNamesQuery = z.object({
  header: z
    .enum(['true', 'false'])
    .optional()
    .meta({ param: { description: '`true`: the first line is a header, skipped' }, example: 'true' }),
});

const SyncHistoryItem = z
  .strictObject({
    id: z.int().min(1).meta({ description: 'increases with each sync; `cursor` pages on it' }),
    dictionary: z.string(),
    device: z.string().meta({ description: 'the device (`x-csw-device`; `unknown` when absent)' }),
    username: z.string(),
    direction: z.enum(['up', 'down']).meta({ description: '`up` an upload, `down` a completed download' }),
    revision: z.int().meta({ description: 'the revision an upload created, or the one a download brought the device to' }),
    cases: z.int().min(0),
    universe: z.string().meta({ description: 'the case-key prefix a download asked for (empty: all)' }),
    created_at: Timestamp,
  })
  .meta({ id: 'SyncHistoryItem' });

/** A page of the sync history, newest first. */
export const SyncHistoryList = z
  .strictObject({
    total: z.int().min(0).meta({ description: 'syncs the filters select (`cursor` included)' }),
    limit: z.int().min(1),
    offset: z.int().min(0),
    next_cursor: z.int().nullable().meta({ description: 'the `cursor` of the next page; null on the last' }),
    data: z.array(SyncHistoryItem),
  })
  .meta({ id: 'SyncHistoryList' });

const Totals = {
  uploads: z.int().min(0),
  cases_uploaded: z.int().min(0),
  downloads: z.int().min(0),
  cases_downloaded: z.int().min(0),
};
const Head = {
  dictionary: z.string().nullable(),
  since: z.string().nullable(),
  until: z.string().nullable(),
  not_seen_days: z.int().nullable(),
  total: z.int().min(0).meta({ description: 'rows of the whole report (this page and the others)' }),
  limit: z.int().min(1),
  offset: z.int().min(0),
};
const AppVersion = z.string().nullable().meta({ description: 'the CSPro version of the device of the last sync; null when unknown' });

/** A report: one page of rows of its grouping (`by`). */
export const SyncReportReply = z
  .discriminatedUnion('by', [
    z.strictObject({
      by: z.literal('user'),
      ...Head,
      rows: z.array(
        z.strictObject({
          user: z.string(),
          ...Totals,
          first_sync: z.string(),
          last_sync: z.string(),
          devices: z.int().min(0),
          last_device: z.string(),
          app_version: AppVersion,
        }),
      ),
    }),
    z.strictObject({
      by: z.literal('device'),
      ...Head,
      rows: z.array(
        z.strictObject({
          device: z.string(),
          ...Totals,
          first_sync: z.string(),
          last_sync: z.string(),
          users: z.int().min(0),
          last_user: z.string(),
          app_version: AppVersion,
        }),
      ),
    }),
    z.strictObject({
      by: z.literal('day'),
      ...Head,
      rows: z.array(z.strictObject({ day: z.string(), ...Totals, devices: z.int().min(0), users: z.int().min(0) })),
    }),
    z.strictObject({
      by: z.literal('ids'),
      ...Head,
      id_items: z.array(z.string()),
      rows: z.array(
        z.strictObject({
          ids: z.record(z.string(), z.string()),
          names: z.record(z.string(), z.string().nullable()),
          cases: z.int().min(0),
        }),
      ),
    }),
  ])
  .meta({ id: 'SyncReport' });

/** The reply to storing area names. */
export const AreaNamesReply = z
  .strictObject({ dictionary: z.string(), areas: z.int().min(0), message: z.string() })
  .meta({ id: 'AreaNamesReply' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [
  Describes<typeof SyncHistoryList, CoreHistoryList>,
  Describes<typeof SyncReportReply, CoreSyncReport>,
  Describes<typeof AreaNamesReply, CoreAreaNamesReply>,
] = [true, true, true];
