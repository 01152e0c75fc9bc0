import { z } from 'zod';
import type { UsersImportResult } from '../../core/auth/index.js';
import type { Describes } from './same-shape.js';

const Flag = z.enum(['true', 'false']);

/** Query of `POST /api/users/import` (docs/supervision.md#accounts). */
export const UsersImportQuery = z.strictObject({
  header: Flag.optional().meta({ description: 'the first line is a header row (as `x-csw-data-header: 1`)' }),
  update: Flag.optional().meta({ description: 'update accounts that exist already instead of refusing their lines' }),
});

/** Headers of `POST /api/users/import`: CSWeb's way of saying the CSV has a header row. */
export const UsersImportHeaders = z.object({
  'x-csw-data-header': z.enum(['0', '1']).optional().meta({ description: "CSWeb's flag: `1` when the first line is a header row" }),
});

/** Reply of `POST /api/users/import`. */
export const UsersImported = z
  .strictObject({
    added: z.int().min(0),
    updated: z.int().min(0),
    accounts: z.array(
      z.strictObject({
        line: z.int().min(1).meta({ description: 'the line of the file the account is on' }),
        username: z.string(),
        role: z.string().meta({ description: 'the role the account has now', example: 'Standard User' }),
        action: z.enum(['add', 'update']),
      }),
    ),
  })
  .meta({ id: 'UsersImported' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [Describes<typeof UsersImported, UsersImportResult>] = [true];
