import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { AppError } from '../../shared/errors.js';
import { fileInfo, openFile } from '../../core/files/index.js';
import type { AppEnv } from '../app-env.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { FileErrorBody, FileInfo, FilenameParams } from '../schemas/files.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/**
 * The missing-file body is `{error}` with a text naming the file (docs/http-api.md#routes). Our own text is
 * used, not the core's, which may name the server's media path.
 */
function notFound(c: Context<AppEnv>, err: unknown, name: string): Response {
  if (err instanceof AppError && err.code === 'NOT_FOUND') return c.json({ error: `file ${name} not found in the media area` }, 404);
  throw err;
}

/** Media file routes (docs/http-api.md#routes): metadata and content. */
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
    description:
      'Sent as an attachment with `X-Content-Type-Options: nosniff`, its content type (from the extension, or `application/octet-stream` when the bytes ' +
      'do not carry that type’s signature) and a sha256 `ETag`; the headers describe exactly the bytes sent, also while the file is being replaced.',
    tags: ['files'],
    permission: 'files.read',
    request: { params: FilenameParams },
    responses: {
      200: { description: 'the file content', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      ...errors,
    },
    handler: async (c) => {
      const { filename } = validate(FilenameParams, { filename: (c.req.param('filename') ?? '').slice(0, -'/content'.length) }, 'path');
      let opened: Awaited<ReturnType<typeof openFile>>;
      try {
        opened = await openFile(store, filename);
      } catch (err) {
        return notFound(c, err, filename);
      }
      // Every header comes from the one open descriptor the bytes are streamed from, so they
      // describe this version even while the file is being replaced.
      const { info, snapshot } = opened;
      const headers = {
        'Content-Type': info.content_type,
        'Content-Length': String(info.size),
        ETag: `"${info.sha256}"`,
        // Attachment and nosniff: uploaded media (HTML, SVG, script bytes under an image name) must never run as a page of this origin.
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(basename(info.name))}`,
        'X-Content-Type-Options': 'nosniff',
      };
      if (c.req.method === 'HEAD') {
        await snapshot.close();
        return new Response(null, { status: 200, headers });
      }
      return new Response(Readable.toWeb(snapshot.stream()) as ReadableStream, { status: 200, headers });
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
    handler: async (c) => {
      const { filename } = validate(FilenameParams, c.req.param(), 'path');
      try {
        return c.json(await fileInfo(store, filename));
      } catch (err) {
        return notFound(c, err, filename);
      }
    },
  });
}
