import { z } from 'zod';
import { deleteDictionary, getDictionary, listDictionaries, uploadDictionary } from '../../core/dictionaries.js';
import { AppError } from '../../shared/errors.js';
import type { ApiBuilder } from '../api-builder.js';
import { readUpload } from '../read-upload.js';
import { ErrorBody, json } from '../schemas/common.js';
import {
  DictionaryDeleteReply,
  DictionaryDetail,
  DictionaryFormQuery,
  DictionaryList,
  DictionaryNameParams,
  DictionaryShort,
  DictionaryUploadForm,
  DictionaryUploadReply,
} from '../schemas/dictionaries.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/** Dictionary routes (spec 4.2), including the spec's misspelt list alias `/api/dictionnaires`. */
export function dictionaryRoutes(api: ApiBuilder, { store, config }: RouteDeps): void {
  for (const path of ['/api/dictionaries', '/api/dictionnaires']) {
    api.route({
      method: 'get',
      path,
      summary: path === '/api/dictionaries' ? 'List dictionaries' : 'List dictionaries (alias seen in the spec’s example)',
      tags: ['dictionaries'],
      permission: 'dictionaries.read',
      responses: { 200: json(DictionaryList, 'dictionaries, by name') },
      handler: (c) => c.json(listDictionaries(store)),
    });
  }

  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}',
    summary: 'Show a dictionary',
    description: 'The detail form of spec 2.2; `?form=short` gives the shorter detail form (name, label, levels and records).',
    tags: ['dictionaries'],
    permission: 'dictionaries.read',
    request: { params: DictionaryNameParams, query: DictionaryFormQuery },
    responses: {
      200: json(z.union([DictionaryDetail, DictionaryShort]), 'the dictionary, in the form asked'),
      400: json(ErrorBody, '`form` is not `full` or `short` (`USAGE`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
    },
    handler: (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const { form } = validate(DictionaryFormQuery, c.req.query(), 'query');
      return c.json(getDictionary(store, name, { short: form === 'short' }));
    },
  });

  api.route({
    method: 'post',
    path: '/api/dictionaries',
    summary: 'Upload a dictionary (.dcf, text or JSON form)',
    description:
      `The name is the one inside the file. Uploading a name that exists replaces its file and label (200 instead of 201). ` +
      `Files larger than the limit (default 10 MB, \`sds serve --max-upload-mb\`) are refused with 413. An invalid file stores nothing.`,
    tags: ['dictionaries'],
    permission: 'dictionaries.write',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: DictionaryUploadForm } } } },
    responses: {
      201: json(DictionaryUploadReply, 'dictionary stored'),
      200: json(DictionaryUploadReply, 'existing dictionary replaced'),
      400: json(ErrorBody, 'not a valid dictionary file (`DICT_INVALID`), bad label (`LABEL_INVALID`) or bad form (`USAGE`)'),
      409: json(ErrorBody, 'the label is used by another dictionary (`CONFLICT`)'),
      413: json(ErrorBody, 'file too large (`PAYLOAD_TOO_LARGE`)'),
    },
    handler: async (c) => {
      const form = await readUpload(c, { fileField: 'file', maxBytes: config.maxUploadBytes });
      if (!form.file) throw new AppError('USAGE', 'the multipart form needs a "file" part holding the .dcf file');
      const reply = uploadDictionary(store, { source: form.file.data, label: form.fields.label, file: form.file.filename || undefined });
      return c.json({ message: reply.message, name: reply.name, label: reply.label }, reply.created ? 201 : 200);
    },
  });

  api.route({
    method: 'delete',
    path: '/api/dictionaries/{name}',
    summary: 'Delete a dictionary without cases',
    tags: ['dictionaries'],
    permission: 'dictionaries.delete',
    request: { params: DictionaryNameParams },
    responses: {
      200: json(DictionaryDeleteReply, 'deleted'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      409: json(ErrorBody, 'the dictionary has cases (`DICT_IN_USE`)'),
    },
    handler: (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      return c.json(deleteDictionary(store, name));
    },
  });
}
