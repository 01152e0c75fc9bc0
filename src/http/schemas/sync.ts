import { z } from 'zod';
import { CASES_CACHE_HEADER, CASES_OPTIONS_HEADER } from '../../core/sync/index.js';

/** `GET /api/server`. */
export const ServerInfo = z
  .strictObject({ deviceId: z.string(), apiVersion: z.number().meta({ example: 2.0 }) })
  .meta({ id: 'SyncServerInfo' });

/** CSWeb's success body. */
export const SyncSuccess = z.strictObject({ code: z.literal(200), description: z.literal('Success') }).meta({ id: 'SyncSuccess' });

/**
 * CSWeb's error body, kept on the client file routes' 404 (files, folders, apps) because the
 * data-collection client reads CSWeb's shape there: `code` is `file_not_found`,
 * `directory_not_found` or `app_not_found` (docs/sync.md, "Files").
 */
export const CswebErrorBody = z
  .strictObject({
    type: z.literal('error'),
    status: z.literal(404),
    code: z.enum(['file_not_found', 'directory_not_found', 'app_not_found']).meta({ description: 'what was not found' }),
    message: z.string().meta({ description: 'what went wrong, for humans' }),
  })
  .meta({ id: 'CswebError' });

const Clock = z.array(z.strictObject({ deviceId: z.string(), revision: z.int().min(0) }));

/** A case in the sync wire form (`level-1` a JSON string, or the pre-7.5 `data` lines on upload). */
const WireCase = z
  .object({
    id: z.string().meta({ example: '997f1b93-b3c7-468e-ba29-7c9b799a0281' }),
    caseids: z.string(),
    label: z.string().optional(),
    deleted: z.boolean().optional(),
    verified: z.boolean().optional(),
    clock: Clock,
    'level-1': z.string().optional().meta({ description: 'the case data, a JSON object serialised as a string (CSPro ≥ 7.5)' }),
    data: z.array(z.string()).optional().meta({ description: 'pre-7.5 clients: the fixed-width text lines of the case' }),
    notes: z.array(z.unknown()).optional(),
    partialSave: z.unknown().optional(),
  })
  .meta({ id: 'SyncCase' });

/**
 * A case in CSPro 8.1's case JSON (docs/sync.md#v3-case-json), read on upload from any client and
 * sent to CSPro 8.1 and later; the first level's object is under the level's dictionary name.
 */
const V3WireCase = z
  .looseObject({
    key: z.string(),
    uuid: z.string().meta({ example: '997f1b93-b3c7-468e-ba29-7c9b799a0281' }),
    label: z.string().optional(),
    deleted: z.boolean().optional(),
    verified: z.boolean().optional(),
    partialSave: z.unknown().optional().meta({ description: '`{mode, name, levelKey?, occurrences?}`' }),
    caseNote: z.string().optional(),
    notes: z.array(z.unknown()).optional().meta({ description: '`[{text, modifiedTime?, operatorId?, name, levelKey?, occurrences?}]`' }),
    clock: Clock.optional(),
  })
  .meta({
    id: 'SyncCaseV3',
    description: 'plus the first level under its name: id items directly, records as arrays, items as `{"code": value}`',
  });

/** A sync case in either form: the older one, or CSPro 8.1's to a version-3 client. */
export const AnyWireCase = z.union([WireCase, V3WireCase]);

export const WireCaseList = z.array(AnyWireCase).meta({ id: 'SyncCaseList' });

/** CSWeb's 412 body of an upload: the device's last sync, or `{}`. */
export const LastSync = z
  .object({
    revisionNumber: z.int().optional(),
    device: z.string().optional(),
    dictionary: z.string().optional(),
    universe: z.string().optional(),
    direction: z.string().optional(),
    dateTime: z.string().optional(),
  })
  .meta({ id: 'SyncLastSync' });

const FileEntry = z
  .object({
    type: z.enum(['file', 'directory']),
    name: z.string(),
    directory: z.string(),
    md5: z.string().optional(),
    size: z.int().optional(),
    lastModified: z.string().optional(),
  })
  .meta({ id: 'SyncFileInfo' });
export const SyncFileInfo = FileEntry;
export const SyncFolder = z.array(FileEntry);

/** An application package as `GET /api/apps` lists it and `PUT /api/apps/{name}` answers. */
export const AppInfoSchema = z
  .strictObject({
    name: z.string(),
    description: z.string(),
    buildTime: z.string(),
    version: z.string(),
    FileType: z.literal('Application Deployment Specification'),
  })
  .meta({ id: 'SyncAppInfo' });

export const AppList = z.array(AppInfoSchema).meta({ id: 'SyncAppList' });

/** `POST /api/messages`: a message of CSPro's syncmessage (docs/sync.md#messages). */
export const SyncMessageBody = z
  .object({
    timestamp: z.union([z.string(), z.number()]).optional().meta({ description: 'when the device sent it, as the device writes it' }),
    name: z.string().optional().meta({ description: 'the message name (required, or `key` as older peers send it)' }),
    key: z.string().optional(),
    value: z.unknown().optional().meta({ description: 'a text or any JSON value; absent when unset' }),
  })
  .meta({ id: 'SyncMessage' });

export const CaseIdParams = z.object({ name: z.string().min(1).max(128), id: z.string().min(1).max(64) });
export const PathParams = z.object({ path: z.string().min(1).max(1024) });
export const AppNameParams = z.object({ name: z.string().min(1).max(200) });

/** The request headers of the sync download, for the OpenAPI document. */
export const SyncDownloadHeaders = z.object({
  'x-csw-device': z.string().optional().meta({ description: 'the device id (recorded; "unknown" when absent)' }),
  'x-csw-if-revision-exists': z
    .string()
    .optional()
    .meta({ description: 'the revision the device holds (If-Match is read when this is absent)' }),
  'x-csw-case-range-start-after': z.string().optional().meta({ description: 'guid cursor within that revision (resuming after a 206)' }),
  'x-csw-case-range-count': z.string().optional().meta({ description: 'chunk size, 1 to 10000 (default 1000)' }),
  'x-csw-universe': z.string().optional().meta({ description: 'case-id prefix, optionally quoted' }),
  'x-csw-exclude-revisions': z.string().optional().meta({ description: 'comma list of revisions to skip (the device’s own uploads)' }),
});

/** The request headers of a CSPro 8.1 data source query (docs/sync.md#queries), for the OpenAPI document. */
export const DataSourceQueryHeaders = z.object({
  [CASES_OPTIONS_HEADER]: z
    .string()
    .optional()
    .meta({
      description:
        'JSON: {content: cases|identifiers|summaries|count, status?: all|notDeletedOnly|partialsOnly|duplicatesOnly, ' +
        'filter?: {operator: =|startswith|<|<=|>=|>, type: key|position|uuid, value}, sort?: {order?: key|position, ascending?}, ' +
        'order?: key|position, offset?, limit?, requestMetadata?}. Its presence makes the request a data source query',
    }),
  [CASES_CACHE_HEADER]: z.string().optional().meta({
    description: 'base64 of zlib JSON {exclude: {serverRevision, positions: [..]}}: cases the client’s cache holds (name to be confirmed)',
  }),
});

const Identifier = z.object({ key: z.string(), uuid: z.string(), position: z.int().min(1), revision: z.int() });

/** The replies of a data source query: one object per `content`, `resultLimit` when the server cut the result. */
export const DataSourceReply = z
  .union([
    z.strictObject({ count: z.int().min(0) }),
    z.strictObject({ identifiers: z.array(Identifier), resultLimit: z.int().optional() }),
    z.strictObject({
      summaries: z.array(
        Identifier.extend({
          label: z.string(),
          deleted: z.boolean(),
          verified: z.boolean(),
          partialSaveMode: z.enum(['add', 'modify', 'verify']).optional(),
          caseNote: z.string().optional(),
        }),
      ),
      resultLimit: z.int().optional(),
    }),
    z.strictObject({
      cases: z
        .array(z.record(z.string(), z.unknown()))
        .meta({ description: 'V3 case JSON; `{}` for a case the client’s cache holds unchanged' }),
      metadata: z.array(z.strictObject({ position: z.int().min(1), revision: z.int() })),
      resultLimit: z.int().optional(),
    }),
  ])
  .meta({ id: 'DataSourceReply' });
