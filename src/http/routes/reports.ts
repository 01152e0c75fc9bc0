import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { historyCsv, listSyncHistory, reportCsv, storeAreaNames, syncReport } from '../../core/reports/index.js';
import { AppError } from '../../shared/errors.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { AreaNamesQuery, AreaNamesReply, SyncHistoryList, SyncHistoryQuery, SyncReportQuery, SyncReportReply } from '../schemas/reports.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

const CSV_TYPE = 'text/csv; charset=utf-8';

/** A reply in JSON, or in CSV with `format=csv`. */
function jsonOrCsv(schema: z.ZodType, description: string): ResponseConfig {
  return {
    description,
    content: {
      'application/json': { schema },
      'text/csv': { schema: { type: 'string', description: 'with `format=csv`: a header row, then one line per row (RFC 4180)' } },
    },
  };
}

/** Sync history and supervision reports (docs/supervision.md#sync-history-and-reports). */
export function reportRoutes(api: ApiBuilder, { store, config, clock }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/syncs',
    summary: 'The sync history of a dictionary, newest first',
    description:
      'Every upload (`up`) and completed download (`down`) of the dictionary: device, account, revision, cases, time; CSWeb’s ' +
      'stub of the same path, made real. Filters `user`, `device`, `direction`, `since` (inclusive) and `until` (exclusive); ' +
      'pages by `limit` (at most 10000) and `offset`, or by `cursor` (`next_cursor` of the previous page), which stays put ' +
      'while devices sync. `format=csv` answers the page as CSV.',
    tags: ['reports'],
    permission: 'reports.read',
    request: { params: DictionaryNameParams, query: SyncHistoryQuery },
    responses: {
      200: jsonOrCsv(SyncHistoryList, 'the page of syncs'),
      400: json(ErrorBody, 'a bad filter or page (`USAGE`, naming it)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const { format, ...q } = validate(SyncHistoryQuery, c.req.query(), 'query');
      const list = await listSyncHistory(store, { ...q, dictionary: name });
      return format === 'csv' ? c.body(historyCsv(list), 200, { 'Content-Type': CSV_TYPE }) : c.json(list);
    },
  });

  api.route({
    method: 'get',
    path: '/api/sync-report',
    summary: 'What each interviewer or device synced, syncs per day, or live cases per id values',
    description:
      '`by=user` (default) or `by=device`: uploads, downloads and their cases, first and last sync, the other side of the last ' +
      'sync and the CSPro version of its device; `not_seen=DAYS` keeps those whose last sync is older. `by=day`: the syncs of ' +
      'each UTC day. `by=ids&dictionary=D&ids=A,B`: the live cases of D per combination of the values of its id items A, B, with ' +
      'the area names stored for them (CSWeb’s sync report, read from the store: no breakout needed). `since` and `until` bound ' +
      'the history read. `format=csv` answers the rows as CSV.',
    tags: ['reports'],
    permission: 'reports.read',
    request: { query: SyncReportQuery },
    responses: {
      200: jsonOrCsv(SyncReportReply, 'the page of the report'),
      400: json(ErrorBody, 'a bad option (`USAGE`, naming it), or unknown id items (`REPORT_IDS_INVALID`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { format, not_seen, ...q } = validate(SyncReportQuery, c.req.query(), 'query');
      const report = await syncReport(store, { ...q, notSeen: not_seen }, clock());
      return format === 'csv' ? c.body(reportCsv(report), 200, { 'Content-Type': CSV_TYPE }) : c.json(report);
    },
  });

  api.route({
    method: 'put',
    path: '/api/dictionaries/{name}/area-names',
    summary: 'Store the area names of a dictionary (code/label CSV)',
    description:
      'The body is the CSV of `sds dict area-names`: one area a line, its codes level by level, then its name (`01,,North`; ' +
      '`01,03,Lakeside`). Checked whole: a bad line refuses the whole file (`AREA_NAMES_INVALID`, every bad line listed with its ' +
      'number). Replaces the names the dictionary had. `header=true` skips the first line.',
    tags: ['reports'],
    permission: 'reports.write',
    audit: { action: 'dictionaries.area-names', target: 'dictionary:{name}' },
    bodyLimit: config.maxUploadBytes,
    request: {
      params: DictionaryNameParams,
      query: AreaNamesQuery,
      body: { required: true, content: { 'text/csv': { schema: { type: 'string' } } } },
    },
    responses: {
      200: json(AreaNamesReply, 'stored'),
      400: json(ErrorBody, 'bad lines (`AREA_NAMES_INVALID`) or an empty body (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      413: json(ErrorBody, 'a body over the upload limit (`PAYLOAD_TOO_LARGE`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const { header } = validate(AreaNamesQuery, c.req.query(), 'query');
      const text = await c.req.text();
      if (text.trim() === '') throw new AppError('USAGE', 'the request body is empty: send the area names CSV as the body');
      return c.json(await storeAreaNames(store, name, text, header === 'true'));
    },
  });
}
