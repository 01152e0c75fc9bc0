import { hideServerPathsIn } from '../hide-server-paths.js';
import {
  jobStatus,
  listJobs,
  startBreakout,
  listBreakoutLogs,
  breakoutTables,
  dropBreakoutTables,
  triggerBreakout,
} from '../../core/breakout/index.js';
import { metrics } from '../../core/metrics/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { readJson } from '../read-body.js';
import { requireOnDictionaries } from '../dictionary-rights.js';
import {
  BreakoutLogs,
  BreakoutStartBody,
  BreakoutStartReply,
  BreakoutTables,
  BreakoutTablesDeleted,
  DictionaryParams,
  JobIdParams,
  JobList,
  JobsQuery,
  JobStatus,
  LogsQuery,
  Metrics,
  NoTablesError,
  TablesExistError,
  TriggerBody,
  TriggerReply,
} from '../schemas/breakout.js';
import { ErrorBody, json } from '../schemas/common.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/** Small JSON bodies only: a list of dictionary names and two options. */
const BODY_LIMIT = 64 * 1024;

const TARGET_ERRORS = {
  502: json(ErrorBody, 'the target database failed (`DB-001` refused, `DB-002` authentication, `DB-003` no such database)'),
  500: json(ErrorBody, 'a database driver is missing (`DB-004`) or the target configuration is invalid (`CONFIG_INVALID`)'),
};

/** Breakout routes (docs/http-api.md#breakout-routes): jobs, tables, trigger, and the integration API's logs and metrics. */
export function breakoutRoutes(api: ApiBuilder, { store, config }: RouteDeps): void {
  api.route({
    method: 'post',
    path: '/api/breakout/start',
    summary: 'Start a full breakout of dictionaries as a background job',
    description:
      'Refused with 409 and the existing tables when any breakout table of a dictionary exists and `overwrite` is not true; ' +
      '`overwrite` drops and rebuilds them. Refused with 409 `BREAKOUT_BUSY` while a job of one of the dictionaries is pending or running. ' +
      'The target is checked before the job starts, its connect bounded by `SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS` (3000 ms). A target that cannot be used (down, not answering, login refused, no such database, driver missing) ' +
      'does not refuse the request: it answers 202 like any valid start, and the job ends at once `failed` with `DB_CONNECTION_ERROR` ' +
      '(the catalogue code `DB-001` … `DB-005` in `error.details`). Follow the job with `GET /api/breakout/status/{job_id}`.',
    tags: ['breakout'],
    permission: 'breakout.run',
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: BreakoutStartBody } } } },
    responses: {
      202: json(BreakoutStartReply, 'job started'),
      400: json(
        ErrorBody,
        'threads not an integer from 1 to 10, a string such as `"2"` included (`INVALID_THREADS`), bad body (`USAGE`) or not JSON (`API-003`)',
      ),
      404: json(ErrorBody, 'a dictionary does not exist (`DICTIONARY_NOT_FOUND`)'),
      409: json(
        TablesExistError,
        'breakout tables exist and overwrite is false (`TABLES_ALREADY_EXIST`, with `existing_tables`), or a job of a dictionary is pending or running (`BREAKOUT_BUSY`)',
      ),
      500: json(ErrorBody, 'the target configuration is invalid (`CONFIG_INVALID`)'),
    },
    handler: async (c) => {
      const body = await readJson(c, BreakoutStartBody);
      await requireOnDictionaries(c, store, 'breakout.run', body.dictionaries);
      return c.json(await startBreakout(store, { ...body, origin: 'api' }, { env: config.env }), 202);
    },
  });

  api.route({
    method: 'get',
    path: '/api/breakout/status/{job_id}',
    summary: 'Status of a breakout job',
    description:
      "The fields depend on `status`. A failed job's `error.code` is one of the spec's breakout codes (`DB_CONNECTION_ERROR`, " +
      '`DICTIONARY_NOT_FOUND`, ...) or, for an error the target database answered, `TARGET_DATABASE_ERROR`; ' +
      '`error.details` is a JSON string whose `diagnostic` is the catalogue code (`DB-001` ...). ' +
      'A job whose process died is reported failed with `BRK-002`.',
    tags: ['breakout'],
    permission: 'breakout.read',
    request: { params: JobIdParams },
    responses: { 200: json(JobStatus, 'the job'), 404: json(ErrorBody, 'no such job (`NOT_FOUND`)') },
    handler: async (c) => {
      const { job_id } = validate(JobIdParams, c.req.param(), 'path');
      return c.json(hideServerPathsIn(await jobStatus(store, job_id)));
    },
  });

  api.route({
    method: 'get',
    path: '/api/breakout/jobs',
    summary: 'List breakout jobs, newest first',
    tags: ['breakout'],
    permission: 'breakout.read',
    request: { query: JobsQuery },
    responses: { 200: json(JobList, 'job list envelope'), 400: json(ErrorBody, 'unknown status or limit not 1 to 1000 (`USAGE`)') },
    handler: async (c) => {
      const q = validate(JobsQuery, c.req.query(), 'query');
      return c.json(hideServerPathsIn(await listJobs(store, { status: q.status, limit: q.limit })));
    },
  });

  api.route({
    method: 'get',
    path: '/api/breakout/tables/{dictionary}',
    summary: 'Breakout tables of a dictionary, with row counts and sizes',
    description:
      'What the target holds now, read from its own catalogue: the tables of the current plan and those the last breakout recorded ' +
      '(after a label change, under the old prefix until the next breakout drops them). `main` is a cases table, every other table is `record`; ' +
      '`stale` marks a table the current plan no longer has.',
    tags: ['breakout'],
    permission: 'breakout.read',
    request: { params: DictionaryParams },
    responses: {
      200: json(BreakoutTables, 'the tables'),
      404: json(
        NoTablesError,
        'no breakout tables (`NOT_FOUND`, with a suggestion), or no such dictionary (`DICTIONARY_NOT_FOUND`, without)',
      ),
      ...TARGET_ERRORS,
    },
    handler: async (c) => {
      const { dictionary } = validate(DictionaryParams, c.req.param(), 'path');
      return c.json(await breakoutTables(store, dictionary));
    },
  });

  api.route({
    method: 'delete',
    path: '/api/breakout/tables/{dictionary}',
    summary: 'Drop the breakout tables of a dictionary',
    description:
      'The next breakout rebuilds them. Stale tables (see GET) are dropped too. A dictionary without tables answers 200 with an empty `deleted_tables`.',
    tags: ['breakout'],
    permission: 'breakout.drop',
    audit: { action: 'breakout.drop', target: 'dictionary:{dictionary}' },
    request: { params: DictionaryParams },
    responses: {
      200: json(BreakoutTablesDeleted, 'dropped'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      ...TARGET_ERRORS,
    },
    handler: async (c) => {
      const { dictionary } = validate(DictionaryParams, c.req.param(), 'path');
      return c.json(await dropBreakoutTables(store, dictionary));
    },
  });

  api.route({
    method: 'post',
    path: '/api/breakout/trigger',
    summary: 'Trigger a background breakout of one dictionary (integration API)',
    description:
      '`selective` (the default) is the incremental run of `sds process-cases-by-dict`: missing tables are created, then only the ' +
      'cases changed since the last run are applied. `full` drops and rebuilds the tables and loads every case. ' +
      'Refused with 409 `BREAKOUT_BUSY` while a job of the dictionary is pending or running.',
    tags: ['breakout'],
    permission: 'breakout.run',
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: TriggerBody } } } },
    responses: {
      202: json(TriggerReply, 'job started'),
      400: json(ErrorBody, 'unknown mode or bad body (`USAGE`), threads not 1 to 10 (`INVALID_THREADS`), not JSON (`API-003`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      409: json(ErrorBody, 'a job of this dictionary is pending or running (`BREAKOUT_BUSY`)'),
    },
    handler: async (c) => {
      const body = await readJson(c, TriggerBody);
      await requireOnDictionaries(c, store, 'breakout.run', [body.dictionary]);
      return c.json(await triggerBreakout(store, { ...body, origin: 'api-trigger' }), 202);
    },
  });

  api.route({
    method: 'get',
    path: '/api/logs/breakout',
    summary: 'Breakout log entries, newest first (integration API)',
    description:
      'Per job and dictionary: started, progress about every 10 %, the first 100 warnings of the job, finished, and how the job ended ' +
      '(`error` level with its code when it failed). The complete log of a job is its file `job-<id>.log` (`sds logs show <job>`).',
    tags: ['breakout'],
    permission: 'breakout.read',
    request: { query: LogsQuery },
    responses: {
      200: json(BreakoutLogs, 'log entries'),
      400: json(ErrorBody, 'limit not 1 to 1000 (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: async (c) => {
      const q = validate(LogsQuery, c.req.query(), 'query');
      return c.json(hideServerPathsIn(await listBreakoutLogs(store, { dictionary: q.dictionary, limit: q.limit })));
    },
  });

  api.route({
    method: 'get',
    path: '/api/metrics',
    summary: 'Case counts, breakout state per dictionary and sync rate (integration API)',
    description:
      'From the store only (no target is contacted). `total_cases` counts active (not deleted) cases; `breakout_status` is `in_progress` ' +
      'while a job of the dictionary is pending or running, else the outcome of its latest completed or failed job, or `not_started`; ' +
      '`sync_rate` is the share of active cases already broken out (100.0% when there are none).',
    tags: ['breakout'],
    permission: 'breakout.read',
    responses: { 200: json(Metrics, 'metrics') },
    handler: async (c) => c.json(await metrics(store)),
  });
}
