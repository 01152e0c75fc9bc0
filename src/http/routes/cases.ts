import { z } from 'zod';
import { listCases, MAX_CASES_LIMIT, parsePaging } from '../../core/cases/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { CaseList, CasesQuery } from '../schemas/cases.js';
import { ErrorBody, json } from '../schemas/common.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';
import { isSyncDownload } from '../../core/sync/index.js';
import { DataSourceQueryHeaders, DataSourceReply, SyncDownloadHeaders, WireCaseList } from '../schemas/sync.js';
import { prefetchDownloadPage, syncDownloadResponse } from './sync.js';
import { dataSourceQueryResponse, isDataSourceQuery } from './data-source.js';

/** A sync chunk in the cssync container (docs/sync.md#binary-items). */
const CSSYNC = { schema: { type: 'string' as const, format: 'binary' as const } };

/** `GET /api/dictionaries/{name}/cases` (docs/http-api.md#routes): one page of case summaries. */
export function caseRoutes(api: ApiBuilder, { store, prometheus }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/cases',
    summary: 'List the cases of a dictionary, a page at a time',
    description:
      `Deleted cases are listed too, flagged \`deleted\`; ordered by case key. \`limit\` is 1 to ${MAX_CASES_LIMIT}; a page holds fewer when its ` +
      'stored text reaches the page byte budget (always at least one case; go on at `offset` + the cases returned; docs/limits.md). ' +
      'A sync chunk is bounded the same way (a cut chunk is a 206).\n\n' +
      'A request carrying any `x-csw-*` header (or `If-Match`) is the data-collection client’s sync download instead (docs/sync.md): ' +
      'a JSON array of cases in the wire form (CSPro 8.1’s case JSON to CSPro 8.1 and later: docs/sync.md#v3-case-json), `ETag` / `x-csw-chunk-max-revision` / `x-csw-case-range-count` headers, 206 while more remains, ' +
      '412 when the revision the device holds is newer than the server’s. A chunk holding cases with binary items whose content is ' +
      'stored comes in the `cssync` container instead (`application/octet-stream`: the case JSON, then each item; docs/sync.md#binary-items).\n\n' +
      'A request carrying `x-csw-cases-options` is a query of the CSPro 8.1 data source instead (docs/sync.md#queries): a count, ' +
      'identifiers, summaries or whole cases (V3 case JSON with the parallel `metadata` of positions and revisions), filtered, sorted and ' +
      'paged as the options say, at most `data_source_cases` per reply (then `resultLimit`; docs/limits.md); 400 `CASES_OPTIONS_INVALID` ' +
      'names a bad key, 400 `JSON_TOO_DEEP` refuses options nested deeper than `json_depth`.',
    tags: ['cases'],
    permission: 'data.read',
    request: { params: DictionaryNameParams, query: CasesQuery, headers: SyncDownloadHeaders.extend(DataSourceQueryHeaders.shape) },
    responses: {
      200: {
        description: 'one page of cases, the last sync chunk, or a data source reply',
        content: { 'application/json': { schema: z.union([CaseList, WireCaseList, DataSourceReply]) }, 'application/octet-stream': CSSYNC },
      },
      206: {
        description: 'a sync chunk with more to fetch',
        content: { 'application/json': { schema: WireCaseList }, 'application/octet-stream': CSSYNC },
      },
      412: json(ErrorBody.partial(), 'sync: the device’s revision is newer than the server’s (body `{}`)'),
      400: json(
        ErrorBody,
        'limit or offset not a whole number in range (`USAGE`), a bad data source option (`CASES_OPTIONS_INVALID`), options nested too deep (`JSON_TOO_DEEP`)',
      ),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    // A sync download's page is read beside the caller's account (docs/decisions.md, "A download page beside its account").
    prefetch: (c) =>
      isSyncDownload((h) => c.req.header(h), c.req.raw.headers.keys()) && !isDataSourceQuery(c)
        ? prefetchDownloadPage(c, store)
        : undefined,
    handler: async (c) => {
      if (isDataSourceQuery(c)) return dataSourceQueryResponse(c, store);
      if (isSyncDownload((h) => c.req.header(h), c.req.raw.headers.keys())) return syncDownloadResponse(c, store, prometheus?.metrics);
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const q = validate(CasesQuery, c.req.query(), 'query');
      return c.json(await listCases(store, name, parsePaging(q.limit, q.offset)));
    },
  });
}
