import { z } from 'zod';
import type { DataSourceMetadata as CoreMetadata } from '../../core/sync/index.js';
import type { Describes } from './same-shape.js';

/** `GET /api/dictionaries/{name}/metadata` (docs/sync.md#the-81-data-source). */
export const DataSourceMetadata = z
  .strictObject({
    permissions: z.array(z.enum(['data', 'data.read', 'data.write', 'data.clear', 'data.none'])).meta({
      description: 'what the account’s role may do with the cases (docs/sync.md#permissions-of-the-data-source)',
      example: ['data.read', 'data.write'],
    }),
    dictionaryKeyStructure: z.string().meta({
      description: 'per id item of the first level: length, content type, and for numeric items 1/0 for zero fill',
      example: '3numeric13numeric1',
    }),
    maxRevision: z.int().min(0).meta({ description: 'the newest revision of the dictionary’s cases, 0 when it has none' }),
  })
  .meta({ id: 'DataSourceMetadata' });

/** Path of the binary-data route. */
export const BinaryDataParams = z.object({
  name: z.string().min(1).max(128),
  signature: z.string().min(1).max(64).meta({ description: 'the md5 of the content, 32 hex digits' }),
});

// Compile-time guard: the schema must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: Describes<typeof DataSourceMetadata, CoreMetadata> = true;
