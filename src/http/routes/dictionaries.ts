import { z } from 'zod';
import {
  deleteDictionary,
  dictionarySource,
  getDictionary,
  listDictionaries,
  uploadDictionary,
  type UploadReply,
} from '../../core/dictionaries/index.js';
import { purgeDictionary } from '../../core/dictionary-purge/index.js';
import { dictionariesWithNothing } from '../../core/auth/index.js';
import { AppError } from '../../shared/errors.js';
import type { ApiBuilder } from '../api-builder.js';
import { readUpload } from '../read-upload.js';
import { ErrorBody, json } from '../schemas/common.js';
import {
  DictionaryDeleteQuery,
  DictionaryDeleteReply,
  DictionaryPurgeReply,
  DictionaryDetail,
  DictionaryFormQuery,
  DictionaryList,
  DictionaryNameParams,
  DictionaryRawUploadReply,
  DictionaryShort,
  DictionaryUploadForm,
  DictionaryUploadReply,
} from '../schemas/dictionaries.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';
import { isCsproClient, uploadRawDictionary } from '../../core/sync/index.js';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.js';

/** The raw body of a CSWeb-style dictionary upload, up to the upload limit. */
async function rawBody(c: Context<AppEnv>, max: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `the dictionary is larger than the limit of ${max} bytes`, { limit: max });
  if (declared > max) throw tooLarge();
  const body = Buffer.from(await c.req.arrayBuffer());
  if (body.length > max) throw tooLarge();
  if (body.length === 0) throw new AppError('USAGE', 'the request body is empty: send the .dcf file as the body');
  return body;
}

const CSWEB_SUCCESS = { code: 200, description: 'Success' } as const;

/** CSWeb's reply to a raw upload; the data-collection client reads only `code`, so a rebuild notice can ride along. */
function rawUploadReply(reply: UploadReply): z.infer<typeof DictionaryRawUploadReply> {
  return reply.breakout_rebuild ? { ...CSWEB_SUCCESS, breakout_rebuild: reply.breakout_rebuild } : CSWEB_SUCCESS;
}

/** Dictionary routes (docs/http-api.md#routes), including the spec's misspelt list alias `/api/dictionnaires`. */
export function dictionaryRoutes(api: ApiBuilder, { store, config }: RouteDeps): void {
  for (const path of ['/api/dictionaries', '/api/dictionnaires']) {
    api.route({
      method: 'get',
      path,
      summary: path === '/api/dictionaries' ? 'List dictionaries' : 'List dictionaries (alias seen in the spec’s example)',
      tags: ['dictionaries'],
      permission: 'dictionaries.read',
      responses: { 200: json(DictionaryList, 'dictionaries, by name') },
      handler: async (c) => {
        // A dictionary the caller's role may do nothing with (data.none) is not listed (docs/supervision.md#roles-and-rights).
        const nothing = await dictionariesWithNothing(store, c.get('principal'));
        return c.json((await listDictionaries(store)).filter((d) => !nothing.has(d.dictionaryName)));
      },
    });
  }

  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}',
    summary: 'Show a dictionary',
    description:
      'The full detail form; `?form=short` gives the shorter detail form (name, label, levels and records). ' +
      '`?form=source` gives the dictionary file as it was uploaded (text or JSON form), byte for byte, as `text/plain`: ' +
      'what a CSPro client (`User-Agent: CSPro sync client/…`) gets without `form`, since CSEntry stores it as the .dcf and ' +
      'CSPro 8.1’s data source parses it as a dictionary (docs/sync.md#dictionaries).',
    tags: ['dictionaries'],
    permission: 'dictionaries.read',
    request: { params: DictionaryNameParams, query: DictionaryFormQuery },
    responses: {
      200: {
        description: 'the dictionary, in the form asked',
        content: {
          ...json(z.union([DictionaryDetail, DictionaryShort]), '').content,
          'text/plain': { schema: { type: 'string' as const, description: 'the dictionary file as uploaded (`form=source`)' } },
        },
      },
      400: json(ErrorBody, '`form` is not `full`, `short` or `source` (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const { form } = validate(DictionaryFormQuery, c.req.query(), 'query');
      if (form === 'source' || (form === undefined && isCsproClient(c.req.header('user-agent')))) {
        const { source } = await dictionarySource(store, name);
        return c.body(new Uint8Array(source), 200, { 'Content-Type': 'text/plain; charset=utf-8' });
      }
      return c.json(await getDictionary(store, name, { short: form === 'short' }));
    },
  });

  api.route({
    method: 'post',
    path: '/api/dictionaries',
    summary: 'Upload a dictionary (.dcf, text or JSON form)',
    description:
      `The name is the one inside the file. Uploading a name that exists replaces its file and label (200 instead of 201). ` +
      `A body that is not multipart is the data-collection client’s form (CSWeb): the raw .dcf text as the body ` +
      `(CSPro 8.1 sends the JSON form compressed with zlib under \`Content-Encoding: deflate\`: a zlib or gzip body is inflated, whatever its label), ` +
      `answered 200 \`{"code":200,"description":"Success"}\` whether created or replaced; a new dictionary gets a label from its name ` +
      `(lower case, without \`_DICT\`) unless \`?label=\` gives one, an existing one keeps its label. ` +
      `Files larger than the limit (default 10 MB, \`sds serve --max-upload-mb\`) are refused with 413. An invalid file stores nothing. ` +
      `A replacement that makes the next breakout drop and rebuild tables (new label, or new structure) says so in \`breakout_rebuild\` ` +
      `(the tables to drop and to create, and why); the raw form adds that field to CSWeb's reply only then. ` +
      `A CSPro 8.1 JSON dictionary's syncable name (\`"sync": {"name": …}\`) is stored with it and names it in every URL too; ` +
      `a file without one keeps the stored one (docs/sync.md#syncable-names).`,
    tags: ['dictionaries'],
    permission: 'dictionaries.write',
    audit: { action: 'dictionaries.upload' },
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': { schema: DictionaryUploadForm },
          'text/plain': { schema: { type: 'string', description: 'the .dcf file (CSWeb form)' } },
        },
      },
    },
    responses: {
      201: json(DictionaryUploadReply, 'dictionary stored'),
      200: json(
        DictionaryUploadReply.or(DictionaryRawUploadReply),
        'existing dictionary replaced (multipart), or stored (raw body: CSWeb’s reply)',
      ),
      400: json(
        ErrorBody,
        'not a valid dictionary file (`DICT_INVALID`), bad label (`LABEL_INVALID`), a multipart body that is broken or not closed (`MULTIPART_INVALID`) or bad form (`USAGE`)',
      ),
      409: json(
        ErrorBody,
        'the label is used by another dictionary (`CONFLICT`); the syncable name or the name is another dictionary’s name or syncable name ' +
          '(`SYNC_NAME_TAKEN`); the file changes the syncable name of a dictionary that holds cases (`SYNC_NAME_LOCKED`)',
      ),
      413: json(ErrorBody, 'file too large (`PAYLOAD_TOO_LARGE`)'),
    },
    handler: async (c) => {
      // multipart is the spec's form, a web form is a mistake (USAGE below); any other body is the raw .dcf.
      if (!/^(multipart\/|application\/x-www-form-urlencoded)/i.test(c.req.header('content-type') ?? '')) {
        const body = await rawBody(c, config.maxUploadBytes);
        return c.json(
          rawUploadReply(await uploadRawDictionary(store, body, { label: c.req.query('label'), maxBytes: config.maxUploadBytes })),
        );
      }
      const form = await readUpload(c, { fileField: 'file', maxBytes: config.maxUploadBytes });
      if (!form.file) throw new AppError('USAGE', 'the multipart form needs a "file" part holding the .dcf file');
      const reply = await uploadDictionary(store, {
        source: form.file.data,
        label: form.fields.label,
        file: form.file.filename || undefined,
      });
      return c.json(
        {
          message: reply.message,
          name: reply.name,
          sync_name: reply.sync_name,
          label: reply.label,
          breakout_rebuild: reply.breakout_rebuild,
        },
        reply.created ? 201 : 200,
      );
    },
  });

  api.route({
    method: 'put',
    path: '/api/dictionaries/{name}',
    summary: 'Create or replace a dictionary from the raw .dcf body',
    description:
      'The file must hold the dictionary named in the URL (by its name or its syncable name). An existing dictionary keeps its label; a new one gets one from its name unless `?label=` gives one. ' +
      'A replacement that makes the next breakout drop and rebuild tables adds `breakout_rebuild` to the reply (see POST).',
    tags: ['dictionaries'],
    permission: 'dictionaries.write',
    audit: { action: 'dictionaries.upload', target: 'dictionary:{name}' },
    request: { params: DictionaryNameParams, body: { required: true, content: { 'text/plain': { schema: { type: 'string' } } } } },
    responses: {
      200: json(DictionaryRawUploadReply, 'stored'),
      400: json(ErrorBody, 'not a valid dictionary file (`DICT_INVALID`) or another dictionary than the URL names (`USAGE`)'),
      409: json(
        ErrorBody,
        'the label is used by another dictionary (`CONFLICT`), or the syncable name is taken (`SYNC_NAME_TAKEN`) or may not change (`SYNC_NAME_LOCKED`)',
      ),
      413: json(ErrorBody, 'file too large (`PAYLOAD_TOO_LARGE`)'),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      return c.json(
        rawUploadReply(
          await uploadRawDictionary(store, await rawBody(c, config.maxUploadBytes), {
            expectedName: name,
            label: c.req.query('label'),
            maxBytes: config.maxUploadBytes,
          }),
        ),
      );
    },
  });

  api.route({
    method: 'delete',
    path: '/api/dictionaries/{name}',
    summary: 'Delete a dictionary without cases, or purge it with `with_cases=true`',
    description:
      'Without flags (the spec): refused with 409 `DICT_IN_USE` while the dictionary has cases (soft-deleted ones included) or breakout tables. ' +
      '`with_cases=true` purges it: cases and their tombstones, revisions, schedules with their runs and log files, sync history, ' +
      'its own breakout jobs and log entries, breakout state, target configuration and undelivered webhook events go in one transaction, ' +
      'and the reply counts them. Breakout tables stay in the target (listed in `tables_left`) unless `drop_tables=true`, which drops them ' +
      'first; a target that cannot be reached then stops the purge before anything is removed. Refused with 409 `BREAKOUT_BUSY` while a ' +
      'breakout job or schedule run of the dictionary is pending or running.',
    tags: ['dictionaries'],
    permission: 'dictionaries.delete',
    audit: {
      action: (c) => (c.req.query('with_cases') === 'true' ? 'dictionaries.purge' : 'dictionaries.delete'),
      target: 'dictionary:{name}',
    },
    request: { params: DictionaryNameParams, query: DictionaryDeleteQuery },
    responses: {
      200: json(z.union([DictionaryDeleteReply, DictionaryPurgeReply]), 'deleted, or purged (with `with_cases=true`)'),
      400: json(ErrorBody, 'a flag is not `true` or `false`, or `drop_tables` without `with_cases` (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      409: json(
        ErrorBody,
        'the dictionary has cases or breakout tables and `with_cases` is not set (`DICT_IN_USE`), or a job of it is pending or running (`BREAKOUT_BUSY`)',
      ),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const q = validate(DictionaryDeleteQuery, c.req.query(), 'query');
      const dropTables = q.drop_tables === 'true';
      if (q.with_cases !== 'true') {
        if (dropTables) throw new AppError('USAGE', 'drop_tables=true needs with_cases=true', { parameter: 'drop_tables' });
        return c.json(await deleteDictionary(store, name));
      }
      return c.json(await purgeDictionary(store, name, { dropTables }));
    },
  });
}
