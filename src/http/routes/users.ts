import { importUsersCsv } from '../../core/auth/index.js';
import { limitsOf } from '../../core/home/index.js';
import { AppError } from '../../shared/errors.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { UsersImported, UsersImportHeaders, UsersImportQuery } from '../schemas/users.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/** The media types a CSV of accounts may come as: CSWeb's web page sends text/plain. */
const CSV_TYPES = new Set(['text/csv', 'text/plain']);

/** Account routes (docs/supervision.md#accounts). */
export function userRoutes(api: ApiBuilder, { store }: RouteDeps): void {
  const maxBytes = limitsOf(store).usersImportBytes;
  for (const [path, summary] of [
    ['/api/users/import', 'Add (or update) accounts from a CSV in CSWeb’s column order'],
    ['/api/users', 'Add (or update) accounts from a CSV: CSWeb’s own path for its user import'],
  ] as const) {
    api.route({
      method: 'post',
      path,
      summary,
      description:
        'Columns: username, first name, last name, role name, password[, email, phone]; a header row when `header=true` or ' +
        '`x-csw-data-header: 1`. Every line is checked before anything is written: one bad line imports nothing and the ' +
        '400 lists every bad line in `details.errors`. An account that exists is updated only with `update=true`. ' +
        'See docs/supervision.md#accounts.',
      tags: ['users'],
      permission: 'users.write',
      audit: { action: 'users.import' },
      bodyLimit: maxBytes,
      request: {
        query: UsersImportQuery,
        headers: UsersImportHeaders,
        body: {
          required: true,
          content: {
            'text/csv': { schema: { type: 'string' } },
            'text/plain': { schema: { type: 'string' } },
          },
        },
      },
      responses: {
        200: json(UsersImported, 'every account of the file, added or updated, in one transaction'),
        400: json(
          ErrorBody,
          'lines of the file are not valid, each in `details.errors` with its line (`USERS_IMPORT_INVALID`), or the body is not CSV or a query parameter is not valid (`USAGE`); nothing was imported',
        ),
        404: json(ErrorBody, 'an account to update was removed while the file was imported (`NOT_FOUND`); nothing was imported'),
        409: json(ErrorBody, 'an account to add was created while the file was imported (`CONFLICT`); nothing was imported'),
        413: json(
          ErrorBody,
          'the file has more bytes or rows than `limits.users_import_bytes` or `limits.users_import_rows` (`PAYLOAD_TOO_LARGE`)',
        ),
      },
      handler: async (c) => {
        const q = validate(UsersImportQuery, c.req.query(), 'query');
        const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (!CSV_TYPES.has(type)) throw new AppError('USAGE', 'send the accounts as text/csv or text/plain');
        const header = q.header === 'true' || c.req.header('x-csw-data-header') === '1';
        const body = new Uint8Array(await c.req.arrayBuffer());
        return c.json(
          await importUsersCsv(store, body, {
            header,
            update: q.update === 'true',
            source: 'the CSV of accounts',
            grantor: c.get('rights'),
          }),
        );
      },
    });
  }
}
