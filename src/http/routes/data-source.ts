import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { limitsOf, type Store } from '../../core/home/index.js';
import {
  CASES_CACHE_HEADER,
  CASES_OPTIONS_HEADER,
  clearDataSource,
  dataSourceMetadata,
  deviceOf,
  openDataSourceBinary,
  parseCasesCache,
  parseCasesOptions,
  queryDataSource,
} from '../../core/sync/index.js';
import type { AppEnv } from '../app-env.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { BinaryDataParams, DataSourceMetadata } from '../schemas/data-source.js';
import { SyncSuccess } from '../schemas/sync.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** True when `GET …/cases` is a CSPro 8.1 data source query: it carries `x-csw-cases-options`. */
export function isDataSourceQuery(c: Context<AppEnv>): boolean {
  return c.req.header(CASES_OPTIONS_HEADER) !== undefined;
}

/**
 * `GET …/cases` in the data source's form (docs/sync.md#queries): the options header read, the
 * cache header read when it can be, one core query, its JSON text sent as it is.
 */
export async function dataSourceQueryResponse(c: Context<AppEnv>, store: Store): Promise<Response> {
  const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
  const limits = limitsOf(store);
  const options = parseCasesOptions(c.req.header(CASES_OPTIONS_HEADER) ?? '', limits.jsonDepth);
  const cacheHeader = c.req.header(CASES_CACHE_HEADER);
  const cache = cacheHeader === undefined ? undefined : parseCasesCache(cacheHeader, limits.dataSourceCacheBytes, limits.jsonDepth);
  return c.body(await queryDataSource(store, name, options, cache), 200, { 'Content-Type': JSON_TYPE });
}

/** The CSPro 8.1 data source's own routes (docs/sync.md#the-81-data-source): metadata, binary content, clearing the cases. */
export function dataSourceRoutes(api: ApiBuilder, { store }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/metadata',
    summary: 'What the CSPro 8.1 data source reads when it opens a dictionary',
    description:
      'The account’s effective rights on this dictionary (its role’s, or the role’s rows for the dictionary) in the data source’s words, the key structure it compares with its own dictionary ' +
      'and the newest revision of the dictionary’s cases (docs/sync.md#the-81-data-source). A dictionary that does not exist is a JSON ' +
      '404, after which the client uploads it. It needs `dictionaries.read`, not `data.read`: an account with nothing on the ' +
      'dictionary is told `data.none`, as CSWeb 8.1 tells it, and the client refuses with its own message.',
    tags: ['sync'],
    permission: 'dictionaries.read',
    request: { params: DictionaryNameParams },
    responses: {
      200: json(DataSourceMetadata, 'the metadata'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      return c.json(await dataSourceMetadata(store, name, c.get('rights')));
    },
  });

  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/binary-data/{signature}',
    summary: 'The content of a binary case item, by its signature',
    description:
      'The raw bytes of an image, recording or document a case of the dictionary holds, as the CSPro 8.1 data source fetches it ' +
      'when the application touches the item; `Content-MD5` is the md5 in hex (the signature). 404 when this server does not hold ' +
      'the content (docs/sync.md#binary-items).',
    tags: ['sync'],
    permission: 'data.read',
    request: { params: BinaryDataParams },
    responses: {
      200: {
        description: 'the content',
        content: { 'application/octet-stream': { schema: { type: 'string' as const, format: 'binary' as const } } },
      },
      400: json(ErrorBody, 'the signature is not 32 hex digits (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`) or content (`NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { name, signature } = validate(BinaryDataParams, c.req.param(), 'path');
      const content = await openDataSourceBinary(store, name, signature);
      return new Response(Readable.toWeb(content.open()) as ReadableStream, {
        status: 200,
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(content.size),
          'Content-MD5': content.md5,
          ETag: content.md5,
          'X-Content-Type-Options': 'nosniff',
        },
      });
    },
  });

  api.route({
    method: 'delete',
    path: '/api/dictionaries/{name}/data',
    summary: 'Delete every case of a dictionary (CSPro 8.1 data source)',
    description:
      'What the data source sends when an application opens the dictionary to create it anew or for batch output: every live case ' +
      'becomes a tombstone at one new revision (devices and the incremental breakout see the deletions), recorded in the sync history. ' +
      'The dictionary, its tombstones and the positions of its cases stay (docs/sync.md#the-81-data-source).',
    tags: ['sync'],
    permission: 'data.clear',
    audit: { action: 'cases.clear', target: 'dictionary:{name}' },
    request: { params: DictionaryNameParams },
    responses: {
      200: json(SyncSuccess, 'deleted; the revision is in x-csw-current-revision'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const r = await clearDataSource(
        store,
        name,
        deviceOf((h) => c.req.header(h)),
        c.get('principal').username,
      );
      return c.body('{"code":200,"description":"Success"}', 200, {
        'Content-Type': JSON_TYPE,
        'x-csw-current-revision': String(r.revision),
      });
    },
  });
}
