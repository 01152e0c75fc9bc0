import { z } from 'zod';
import type { FileInfo as CoreFileInfo } from '../../core/files/index.js';
import type { Describes } from './same-shape.js';
import { ErrorBody, OAuthErrorBody, Timestamp } from './common.js';

/** Path parameter `{filename}`: a name in the media area, may contain `/` between folders. */
export const FilenameParams = z.object({
  filename: z
    .string()
    .min(1)
    .meta({ param: { description: 'file name in the media area; sub-folders separated by /' }, example: 'photos/house-001.jpg' }),
});

/** File metadata (docs/http-api.md#routes: at least name and size). */
export const FileInfo = z
  .strictObject({
    name: z.string(),
    size: z.int().min(0),
    content_type: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'FileInfo' });

/** Error body of the files routes (docs/http-api.md#routes): only `error`, a text naming the file. */
export const FileErrorBody = z.strictObject({ error: z.string() }).meta({ id: 'FileError' });

/**
 * A refused file upload (403): `CHECKSUM_MISMATCH` in the `{error, message}` shape, or a role that
 * may not replace the file, `access_denied` in the OAuth shape of every role refusal.
 */
export const FileRefusedBody = z.union([ErrorBody, OAuthErrorBody]);

// Compile-time guard: the schema must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: Describes<typeof FileInfo, CoreFileInfo> = true;
