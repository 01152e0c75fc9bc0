import { Readable } from 'node:stream';
import { exportDownload } from '../../core/export/index.js';
import { clearDictionaryGps, getDictionaryGps, setDictionaryGps } from '../../core/dictionaries/index.js';
import { readJson } from '../read-body.js';
import { DictionaryGpsBody, DictionaryGpsCleared, DictionaryGpsReply } from '../schemas/dictionary-gps.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { ExportQuery } from '../schemas/export.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

const BINARY = { schema: { type: 'string' as const, format: 'binary' } };

/** A body of two item names, with room to spare. */
const GPS_BODY_LIMIT = 16 * 1024;

/**
 * `GET /api/dictionaries/{name}/export` (docs/export.md#over-http): one exported file, or a zip of
 * them; and `…/gps`, the GPS items a GeoJSON export uses by default (docs/export.md#gps-items-of-a-dictionary).
 */
export function exportRoutes(api: ApiBuilder, { store }: RouteDeps): void {
  gpsRoutes(api, store);
  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/export',
    summary: 'Export the cases of a dictionary as CSV, Stata, SPSS, Parquet, Excel or GeoJSON',
    description:
      'One table asked with `record` → that file, streamed; several, or none named → a zip of every file asked and `codebook.csv`; ' +
      '`format=xlsx` → one workbook with a sheet per table asked and a `codebook` sheet. ' +
      'A single CSV or Parquet table is streamed as it is read from the store; Stata and SPSS files and zips are written to a temporary ' +
      'folder first (the server needs room for them), then sent, as is an Excel workbook. Sent as an attachment (`Content-Disposition`). ' +
      '`format=geojson` sends one GeoJSON file of points (`lat`, `lon`, `item`), streamed; its `sds` member at the end counts the ' +
      'points and the cases without valid coordinates.',
    tags: ['export'],
    permission: 'data.export',
    request: { params: DictionaryNameParams, query: ExportQuery },
    responses: {
      200: {
        description: 'the file, or a zip of the files',
        content: {
          'text/csv': BINARY,
          'application/x-stata-dta': BINARY,
          'application/x-spss-sav': BINARY,
          'application/vnd.apache.parquet': BINARY,
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': BINARY,
          'application/zip': BINARY,
          'application/geo+json': BINARY,
        },
      },
      400: json(
        ErrorBody,
        'a query parameter is not valid (`USAGE`), the format is unknown (`EXPORT_FORMAT_UNKNOWN`), a table has more rows than an Excel sheet holds (`EXPORT_XLSX_TOO_MANY_ROWS`); geojson: no GPS items given or set ' +
          '(`EXPORT_GPS_UNSET`), or an item that cannot be one (`GPS_ITEM_INVALID`, `GEOJSON_ITEM_INVALID`)',
      ),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`) or record (`EXPORT_RECORD_UNKNOWN`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const q = validate(ExportQuery, c.req.query(), 'query');
      const records = (c.req.queries('record') ?? []).flatMap((r) => r.split(',').map((s) => s.trim())).filter(Boolean);
      const d = await exportDownload(store, {
        dictionary: name,
        format: q.format,
        records,
        labels: q.labels,
        sinceRevision: q.since_revision === undefined ? undefined : Number(q.since_revision),
        includeDeleted: q.include_deleted === 'true',
        ids: q.ids !== 'false',
        latitude: q.lat,
        longitude: q.lon,
        items: (c.req.queries('item') ?? []).flatMap((r) => r.split(',').map((s) => s.trim())).filter(Boolean),
      });
      return new Response(Readable.toWeb(d.body) as ReadableStream, {
        status: 200,
        headers: {
          'Content-Type': d.mediaType,
          'Content-Disposition': `attachment; filename="${d.fileName.replace(/[^A-Za-z0-9_.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(d.fileName)}`,
          'X-Content-Type-Options': 'nosniff',
        },
      });
    },
  });
}

/** `GET|PUT|DELETE /api/dictionaries/{name}/gps`: the GPS items of a dictionary. */
function gpsRoutes(api: ApiBuilder, store: RouteDeps['store']): void {
  const notFound = json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)');
  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/gps',
    summary: 'The latitude and longitude items a GeoJSON export of the dictionary uses by default',
    tags: ['dictionaries'],
    permission: 'dictionaries.read',
    request: { params: DictionaryNameParams },
    responses: { 200: json(DictionaryGpsReply, 'the items set, or nulls'), 404: notFound },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      return c.json(await getDictionaryGps(store, name));
    },
  });
  api.route({
    method: 'put',
    path: '/api/dictionaries/{name}/gps',
    summary: 'Set the latitude and longitude items a GeoJSON export of the dictionary uses by default',
    description:
      'Both must be numeric items of the dictionary that do not repeat, on the same record (or both id items of one level); ' +
      'stored as the dictionary spells them, replacing those set before.',
    tags: ['dictionaries'],
    permission: 'dictionaries.write',
    audit: { action: 'dictionaries.set-gps', target: 'dictionary:{name}' },
    bodyLimit: GPS_BODY_LIMIT,
    request: { params: DictionaryNameParams, body: { required: true, content: { 'application/json': { schema: DictionaryGpsBody } } } },
    responses: {
      200: json(DictionaryGpsReply, 'set'),
      400: json(ErrorBody, 'items that cannot be a latitude and a longitude (`GPS_ITEM_INVALID`), a bad body (`USAGE`)'),
      404: notFound,
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const body = await readJson(c, DictionaryGpsBody);
      return c.json(await setDictionaryGps(store, name, body.latitude, body.longitude));
    },
  });
  api.route({
    method: 'delete',
    path: '/api/dictionaries/{name}/gps',
    summary: 'Forget the GPS items of the dictionary',
    tags: ['dictionaries'],
    permission: 'dictionaries.write',
    audit: { action: 'dictionaries.clear-gps', target: 'dictionary:{name}' },
    request: { params: DictionaryNameParams },
    responses: { 200: json(DictionaryGpsCleared, 'cleared (`cleared`: whether any were set)'), 404: notFound },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      return c.json(await clearDictionaryGps(store, name));
    },
  });
}
