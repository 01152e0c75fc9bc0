import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { AppError } from '../../shared/errors.js';
import { fileInfo, openFile } from '../../core/files.js';
import type { AppEnv } from '../app-env.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { FileErrorBody, FileInfo, FilenameParams } from '../schemas/files.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/**
 * The spec's missing-file body is `{error}` with a text naming the file (4.3). Our own text is
 * used, not the core's, which may name the server's media path.
 */
function notFound(c: Context<AppEnv>, err: unknown, name: string): Response {
  if (err instanceof AppError && err.code === 'NOT_FOUND') return c.json({ error: `file ${name} not found in the media area` }, 404);
  throw err;
}

/** Media file routes (spec 4.3): metadata and content. */
export function fileRoutes(api: ApiBuilder, { store }: RouteDeps): void {
  const errors = {
    400: json(ErrorBody, 'the name escapes the media area or is not allowed (`PATH_INVALID`)'),
    404: json(FileErrorBody, 'no such file'),
  };

  // Registered before the metadata route: `{filename}` may hold `/`, and `.../content` must win.
  api.route({
    method: 'get',
    path: '/api/files/media/{filename}/content',
    // Hono's router lets the greedy parameter of the metadata route win over `{.+}/content`;
    // matching the suffix inside the parameter is unambiguous, and the handler strips it.
    honoPath: '/api/files/media/:filename{.+/content}',
    summary: 'Download a media file',
    description: 'Sent as an attachment with its content type and a sha256 ETag.',
    tags: ['files'],
    permission: 'files.read',
    request: { params: FilenameParams },
    responses: { 200: { description: 'the file content', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...errors },
    handler: (c) => {
      const { filename } = validate(FilenameParams, { filename: (c.req.param('filename') ?? '').slice(0, -'/content'.length) }, 'path');
      let opened: ReturnType<typeof openFile>;
      try {
        opened = openFile(store, filename);
      } catch (err) {
        return notFound(c, err, filename);
      }
      const { info, stream } = opened;
      return new Response(Readable.toWeb(stream) as ReadableStream, {
        status: 200,
        headers: {
          'Content-Type': info.content_type,
          'Content-Length': String(info.size),
          ETag: `"${info.sha256}"`,
          // Attachment: uploaded media (HTML, SVG) must never run as a page of this origin.
          'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(basename(info.name))}`,
        },
      });
    },
  });

  api.route({
    method: 'get',
    path: '/api/files/media/{filename}',
    honoPath: '/api/files/media/:filename{.+}',
    summary: 'Metadata of a media file',
    tags: ['files'],
    permission: 'files.read',
    request: { params: FilenameParams },
    responses: { 200: json(FileInfo, 'metadata (not the content)'), ...errors },
    handler: (c) => {
      const { filename } = validate(FilenameParams, c.req.param(), 'path');
      try {
        return c.json(fileInfo(store, filename));
      } catch (err) {
        return notFound(c, err, filename);
      }
    },
  });
}
