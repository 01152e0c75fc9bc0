import { z } from 'zod';
import type {
  BreakoutRebuildNotice as CoreRebuild,
  DictionaryDetail as CoreDetail,
  DictionaryListItem as CoreListItem,
  DictionaryShort as CoreShort,
} from '../../core/dictionaries/index.js';
import type { PurgeReply as CorePurgeReply } from '../../core/dictionary-purge/index.js';
import type { Describes } from './same-shape.js';
import type { deleteDictionary } from '../../core/dictionaries/index.js';
import { Timestamp } from './common.js';

const NameLabel = z.strictObject({ name: z.string(), label: z.string() });

/** The syncable name stored with a dictionary (docs/sync.md#syncable-names). */
const SyncName = z
  .string()
  .nullable()
  .meta({ description: 'the syncable name CSPro 8.1 clients use in URLs (`"sync": {"name": …}` of the JSON dictionary); null when none' });

/** Path parameter `{name}` (case-sensitive): the dictionary's own name or its syncable name. */
export const DictionaryNameParams = z.object({
  name: z
    .string()
    .min(1)
    .meta({
      param: { description: 'the dictionary’s name or its syncable name (docs/sync.md#syncable-names), case-sensitive' },
      example: 'POPSTAN_CENSUS_DICT',
    }),
});

/** Dictionary list item (docs/http-api.md#routes, list form). */
const DictionaryListItem = z
  .strictObject({
    name: z.string().meta({
      description:
        'the name in URLs, as CSWeb 8.1 lists it: the syncable name of a CSPro 8.1 dictionary that sets one, else the dictionary’s own name',
    }),
    label: z.string(),
    version: z.string(),
    created_at: Timestamp,
    caseCount: z.int().min(0).meta({ description: 'cases not deleted (as CSWeb lists it)' }),
    dictionaryName: z
      .string()
      .meta({ description: 'the dictionary’s own name, as CSPro 8.1 reads it (`name` unless it has a syncable name)' }),
    modifiedTime: z
      .string()
      .meta({ description: 'when the dictionary was last uploaded, RFC 3339 (CSPro 8.1 reads it)', example: '2025-01-31T08:15:00Z' }),
  })
  .meta({ id: 'DictionaryListItem' });

export const DictionaryList = z.array(DictionaryListItem).meta({ id: 'DictionaryList' });

/** Dictionary detail (docs/http-api.md#routes). */
export const DictionaryDetail = z
  .strictObject({
    name: z.string(),
    sync_name: SyncName,
    label: z.string(),
    version: z.string(),
    description: z.string(),
    levels: z.array(NameLabel),
    records: z.array(NameLabel),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'DictionaryDetail' });

/** Short detail form (docs/http-api.md#routes): only name, label, levels and records. */
export const DictionaryShort = z
  .strictObject({ name: z.string(), label: z.string(), levels: z.array(NameLabel), records: z.array(NameLabel) })
  .meta({ id: 'DictionaryShort' });

/** Query of GET /api/dictionaries/{name}: which detail form. */
export const DictionaryFormQuery = z.object({
  form: z
    .enum(['full', 'short', 'source'])
    .optional()
    .meta({
      param: {
        description:
          '`short`: only name, label, levels and records; `full`: every field (the default, except for CSPro clients); ' +
          '`source`: the dictionary file as uploaded, as `text/plain` (the default for a CSPro client, `User-Agent: CSPro sync client/…`)',
      },
      example: 'short',
    }),
});

/** Multipart body of POST /api/dictionaries. */
export const DictionaryUploadForm = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'the .dcf file (text or JSON form)' }),
    label: z
      .string()
      .meta({ description: 'short label, prefix of the breakout tables: a letter, then letters, digits or _', example: 'popstan' }),
  })
  .meta({ id: 'DictionaryUploadForm' });

/** The drop and rebuild a replaced dictionary makes the next breakout do (docs/breakout.md, "Destructive changes"). */
const BreakoutRebuildNotice = z
  .strictObject({
    reason: z
      .enum(['label', 'structure'])
      .meta({ description: '`label`: the table prefix changed; `structure`: records, items, their types or lengths changed' }),
    detail: z.string().meta({ description: 'why, e.g. the old and new table prefix' }),
    message: z.string(),
    target: z
      .string()
      .meta({ description: 'the target the tables were recorded in (type and place; never a password, a SQLite file by its name only)' }),
    tables_dropped: z.array(z.string()).meta({ description: 'tables the next breakout drops, if the target still holds them' }),
    tables_created: z.array(z.string()).meta({ description: 'tables it creates instead, loading every case again' }),
  })
  .meta({ id: 'BreakoutRebuildNotice' });

/** Upload reply (docs/http-api.md#routes), plus what the next breakout will drop and rebuild (null: nothing). */
export const DictionaryUploadReply = z
  .strictObject({
    message: z.string(),
    name: z.string(),
    sync_name: SyncName,
    label: z.string(),
    breakout_rebuild: BreakoutRebuildNotice.nullable(),
  })
  .meta({ id: 'DictionaryUploadReply' });

/** CSWeb's success reply to a raw upload, with `breakout_rebuild` only when the next breakout will drop and rebuild tables. */
export const DictionaryRawUploadReply = z
  .strictObject({ code: z.literal(200), description: z.literal('Success'), breakout_rebuild: BreakoutRebuildNotice.optional() })
  .meta({ id: 'DictionaryRawUploadReply' });

/** Deletion reply (docs/http-api.md#routes). */
export const DictionaryDeleteReply = z.strictObject({ message: z.string(), name: z.string() }).meta({ id: 'DictionaryDeleteReply' });

/** Query of DELETE /api/dictionaries/{name}: purge flags (only the literal `true` turns one on). */
export const DictionaryDeleteQuery = z.object({
  with_cases: z
    .enum(['true', 'false'])
    .optional()
    .meta({
      param: { description: '`true`: purge the dictionary with its cases, schedules, sync history and breakout state (docs/http-api.md)' },
      example: 'true',
    }),
  drop_tables: z
    .enum(['true', 'false'])
    .optional()
    .meta({ param: { description: 'with `with_cases=true`: also drop its breakout tables in the target' }, example: 'true' }),
});

const PurgeCounts = z.strictObject({
  cases: z.number().int(),
  deleted_cases: z.number().int(),
  revisions: z.number().int(),
  schedules: z.number().int(),
  schedule_runs: z.number().int(),
  sync_history: z.number().int(),
  breakout_jobs: z.number().int(),
  breakout_log_entries: z.number().int(),
  breakout_state: z.number().int(),
  webhook_events: z.number().int(),
  target: z.number().int(),
  log_files: z.number().int(),
});

/** Reply of a purge (`with_cases=true`): what went, by kind, and the breakout tables dropped or left. */
export const DictionaryPurgeReply = z
  .strictObject({
    message: z.string(),
    name: z.string(),
    removed: PurgeCounts,
    dropped_tables: z.array(z.string()),
    tables_left: z.array(z.string()),
  })
  .meta({ id: 'DictionaryPurgeReply' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [
  Describes<typeof DictionaryDetail, CoreDetail>,
  Describes<typeof DictionaryListItem, CoreListItem>,
  Describes<typeof DictionaryShort, CoreShort>,
  Describes<typeof DictionaryPurgeReply, CorePurgeReply>,
  Describes<typeof BreakoutRebuildNotice, CoreRebuild>,
  Describes<typeof DictionaryList, CoreListItem[]>,
  Describes<typeof DictionaryDeleteReply, Awaited<ReturnType<typeof deleteDictionary>>>,
] = [true, true, true, true, true, true, true];
