import { listCases, MAX_CASES_LIMIT, parsePaging } from '../../core/cases/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { CaseList, CasesQuery } from '../schemas/cases.js';
import { ErrorBody, json } from '../schemas/common.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';
import { isSyncDownload } from '../../core/sync/index.js';
import { SyncDownloadHeaders, WireCaseList } from '../schemas/sync.js';
import { syncDownloadResponse } from './sync.js';

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
      'stored comes in the `cssync` container instead (`application/octet-stream`: the case JSON, then each item; docs/sync.md#binary-items).',
    tags: ['cases'],
    permission: 'cases.read',
    request: { params: DictionaryNameParams, query: CasesQuery, headers: SyncDownloadHeaders },
    responses: {
      200: {
        description: 'one page of cases, or the last sync chunk',
        content: { 'application/json': { schema: CaseList.or(WireCaseList) }, 'application/octet-stream': CSSYNC },
      },
      206: {
        description: 'a sync chunk with more to fetch',
        content: { 'application/json': { schema: WireCaseList }, 'application/octet-stream': CSSYNC },
      },
      412: json(ErrorBody.partial(), 'sync: the device’s revision is newer than the server’s (body `{}`)'),
      400: json(ErrorBody, 'limit or offset not a whole number in range (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: (c) => {
      if (isSyncDownload((h) => c.req.header(h), c.req.raw.headers.keys())) return syncDownloadResponse(c, store, prometheus?.metrics);
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const q = validate(CasesQuery, c.req.query(), 'query');
      return c.json(listCases(store, name, parsePaging(q.limit, q.offset)));
    },
  });
}
