import { listCases, MAX_CASES_LIMIT, parsePaging } from '../../core/cases.js';
import type { ApiBuilder } from '../api-builder.js';
import { CaseList, CasesQuery } from '../schemas/cases.js';
import { ErrorBody, json } from '../schemas/common.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/** `GET /api/dictionaries/{name}/cases` (spec 4.2): one page of case summaries. */
export function caseRoutes(api: ApiBuilder, { store }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/cases',
    summary: 'List the cases of a dictionary, a page at a time',
    description: `Deleted cases are listed too, flagged \`deleted\`; ordered by case key. \`limit\` is 1 to ${MAX_CASES_LIMIT}.`,
    tags: ['cases'],
    permission: 'cases.read',
    request: { params: DictionaryNameParams, query: CasesQuery },
    responses: {
      200: json(CaseList, 'one page of cases'),
      400: json(ErrorBody, 'limit or offset not a whole number in range (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const q = validate(CasesQuery, c.req.query(), 'query');
      return c.json(listCases(store, name, parsePaging(q.limit, q.offset)));
    },
  });
}
