import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import type { Context } from 'hono';
import { limitsOf, type Store } from '../../core/home/index.js';
import {
  chunkJson,
  deleteSyncedCase,
  downloadCases,
  readDownloadPage,
  getSyncCaseJson,
  serverInfo,
  uploadCases,
  listApps,
  listClientFolder,
  openApp,
  openClientFile,
  putClientFile,
  deviceOf,
  syncApiVersion,
  parseDownloadHeaders,
  parseUploadHeaders,
  binaryItemSink,
  chunkBinaryItems,
  chunkContainer,
  inflateLabelled,
  wantsFileMd5,
  putApp,
  deleteApp,
  receiveSyncMessage,
  listSyncMessages,
  type NamedSyncPage,
} from '../../core/sync/index.js';
import type { FileSnapshot } from '../../core/files/index.js';
import { AppError } from '../../shared/errors.js';
import type { AppEnv } from '../app-env.js';
import type { ApiBuilder } from '../api-builder.js';
import type { HttpConfig } from '../config.js';
import type { ServerMetrics } from '../prometheus.js';
import { readSyncBody } from '../read-sync-body.js';
import { ErrorBody, ServerBusyBody, json } from '../schemas/common.js';
import { FileRefusedBody } from '../schemas/files.js';
import { DictionaryNameParams } from '../schemas/dictionaries.js';
import { MessagesQuery, SyncMessageList, SyncMessageReply } from '../schemas/messages.js';
import {
  AppInfoSchema,
  AppList,
  AppNameParams,
  CaseIdParams,
  CswebErrorBody,
  LastSync,
  PathParams,
  ServerInfo,
  SyncFileInfo,
  SyncMessageBody,
  SyncFolder,
  SyncSuccess,
  AnyWireCase,
  WireCaseList,
} from '../schemas/sync.js';
import { noteAppVersion } from '../../core/reports/index.js';
import { validate } from '../validate.js';
import { readJson } from '../read-body.js';
import type { RouteDeps } from './route-deps.js';

const SUCCESS = '{"code":200,"description":"Success"}';
/** CSWeb 8.1's reply to a message, which CSPro hands to the logic that sent it (docs/sync.md#messages). */
const MESSAGE_REPLY = 'null';
const JSON_TYPE = 'application/json; charset=utf-8';
const binary = (description: string) => ({
  description,
  content: { 'application/octet-stream': { schema: { type: 'string' as const, format: 'binary' as const } } },
});

function header(c: Context<AppEnv>) {
  return (name: string) => c.req.header(name);
}

/** The sync API version of the asking client, from its User-Agent (docs/sync.md#client-versions). */
function apiVersionOf(c: Context<AppEnv>) {
  return syncApiVersion(c.req.header('user-agent'));
}

/** CSWeb answers an unknown revision with 412 and a body of its own (the last sync, or `{}`). */
function preconditionFailed(c: Context<AppEnv>, err: unknown): Response {
  if (err instanceof AppError && err.code === 'SYNC_REVISION_UNKNOWN') {
    return c.body(JSON.stringify(err.details.last_sync ?? {}), 412, { 'Content-Type': JSON_TYPE });
  }
  throw err;
}

/** The read of the download page `c` asks for (readDownloadPage), for the route's `prefetch`. */
export async function prefetchDownloadPage(c: Context<AppEnv>, store: Store): Promise<NamedSyncPage | undefined> {
  return readDownloadPage(store, c.req.param('name') ?? '', parseDownloadHeaders(header(c)));
}

/**
 * `GET …/cases` in the sync form (headers chosen by `isSyncDownload`): a chunk of cases with
 * the revision headers, 206 while more remains.
 */
export async function syncDownloadResponse(c: Context<AppEnv>, store: Store, metrics?: ServerMetrics): Promise<Response> {
  const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
  const req = parseDownloadHeaders(header(c));
  let chunk;
  try {
    const prefetched = c.get('prefetched') as Promise<NamedSyncPage | undefined> | undefined;
    chunk = await downloadCases(store, name, req, c.get('principal').username, prefetched);
  } catch (err) {
    return preconditionFailed(c, err);
  }
  // A completed download was recorded: note the CSPro version it came with (docs/supervision.md#sync-history-and-reports).
  if (chunk.status === 200) await noteAppVersion(store, req.device, c.req.header('user-agent'));
  const revision = String(chunk.chunkMaxRevision);
  const version = apiVersionOf(c);
  const body = await chunkJson(store, name, chunk, version);
  metrics?.syncDownloaded(name, chunk.cases.length);
  // Cases with binary items travel in the cssync container with their contents (docs/sync.md#binary-items).
  const items = await chunkBinaryItems(store, chunk, version);
  if (items.length > 0) {
    return c.body(Readable.toWeb(Readable.from(chunkContainer(body, items))) as unknown as ReadableStream, chunk.status, {
      'Content-Type': 'application/octet-stream',
      ETag: revision,
      'x-csw-chunk-max-revision': revision,
      'x-csw-case-range-count': chunk.rangeCount,
    });
  }
  return c.body(body, chunk.status, {
    'Content-Type': JSON_TYPE,
    ETag: revision,
    'x-csw-chunk-max-revision': revision,
    'x-csw-case-range-count': chunk.rangeCount,
  });
}

/** The sync protocol's own routes (docs/sync.md): server info, case upload, single case, files, folders, apps. */
export function syncRoutes(api: ApiBuilder, { store, config, prometheus, clock, uploadMemory, checker }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/server',
    summary: 'Server information for the data-collection client',
    description:
      'The server’s device id (its entry in vector clocks) and the sync API version, written `2.0` as CSWeb writes it: `3.0` to CSPro 8.1 ' +
      'and later (`User-Agent: CSPro sync client/8.1…`), `2.0` to every other client, since an 8.0 client refuses a server above 2 ' +
      '(docs/sync.md#client-versions).',
    tags: ['sync'],
    permission: 'data.read',
    responses: { 200: json(ServerInfo, 'server info') },
    handler: async (c) => {
      const info = await serverInfo(store, apiVersionOf(c));
      // CSWeb writes the version as 2.0, not 2; the client reads either, the bytes stay the same.
      return c.body(`{"deviceId":${JSON.stringify(info.deviceId)},"apiVersion":${info.apiVersion.toFixed(1)}}`, 200, {
        'Content-Type': JSON_TYPE,
      });
    },
  });

  api.route({
    method: 'post',
    path: '/api/dictionaries/{name}/cases',
    summary: 'Upload cases (sync)',
    description:
      'A JSON array of cases (`level-1` as CSPro ≥ 7.5 sends it, the older `data` lines, or CSPro 8.1’s case JSON: docs/sync.md#v3-case-json), plain or compressed (zlib or gzip, ' +
      'detected from the bytes). Every case is checked first: a malformed one refuses the request (400 `CASE_INVALID` naming the case) ' +
      'and nothing is stored; a case over a size limit is 413 `CASE_TOO_LARGE` naming the case, the field and the limit, a body nested deeper than the limit 400 `JSON_TOO_DEEP` (docs/limits.md). The cases are merged by vector clock and written in one transaction at one new revision, returned in ' +
      '`ETag` and `x-csw-current-revision`. 412 with the device’s last sync when `x-csw-if-revision-exists` names a revision this ' +
      'server never issued. A body in the `cssync` container (cases with binary items: docs/sync.md#binary-items) carries the ' +
      'content of each binary item after the case JSON; each is stored by its md5 signature before the cases are written.',
    tags: ['sync'],
    permission: 'data.write',
    request: { params: DictionaryNameParams, body: { required: true, content: { 'application/json': { schema: WireCaseList } } } },
    responses: {
      200: json(SyncSuccess, 'stored; the new revision is in ETag and x-csw-current-revision'),
      400: json(
        ErrorBody,
        'a malformed case or body (`CASE_INVALID`), one nested too deep (`JSON_TOO_DEEP`), a bad header (`SYNC_HEADER_INVALID`), ' +
          'a truncated or malformed cssync container (`SYNC_CONTAINER_INVALID`), a binary item whose md5 is not its signature ' +
          '(`BINARY_ITEM_SIGNATURE_MISMATCH`)',
      ),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      412: json(LastSync, 'the revision the device holds is unknown: sync in full'),
      413: json(
        ErrorBody,
        'the inflated body, or a binary item of a cssync container, is larger than its limit (`PAYLOAD_TOO_LARGE`), or a case field is (`CASE_TOO_LARGE`, details case, field, limit)',
      ),
      503: json(
        ServerBusyBody,
        'the uploads in flight hold all the memory the server allows them (`SERVER_BUSY`, docs/limits.md#memory-of-uploads-in-flight); nothing was stored; send it again after `Retry-After` seconds',
      ),
    },
    handler: async (c) => {
      const { name } = validate(DictionaryNameParams, c.req.param(), 'path');
      const req = parseUploadHeaders(header(c));
      // What this upload holds is charged as it inflates and given back however it ends: stored,
      // refused, or cut by its client (docs/limits.md#memory-of-uploads-in-flight).
      const memory = uploadMemory.lease();
      let reply;
      try {
        reply = await uploadCases(
          store,
          name,
          readSyncBody(c, limitsOf(store), binaryItemSink(store, name), memory),
          req,
          c.get('principal').username,
          { checker, memory },
        );
      } catch (err) {
        return preconditionFailed(c, err);
      } finally {
        memory.release();
      }
      prometheus?.metrics.syncUploaded(name, reply.cases, reply.threaded);
      await noteAppVersion(store, req.device, c.req.header('user-agent'));
      const revision = String(reply.revision);
      return c.body(SUCCESS, 200, { 'Content-Type': JSON_TYPE, ETag: revision, 'x-csw-current-revision': revision });
    },
  });

  api.route({
    method: 'get',
    path: '/api/dictionaries/{name}/cases/{id}',
    summary: 'One case in the sync wire form',
    tags: ['sync'],
    permission: 'data.read',
    request: { params: CaseIdParams },
    responses: {
      200: json(AnyWireCase, 'the case (CSPro 8.1’s case JSON to CSPro 8.1 and later)'),
      404: json(ErrorBody, 'no such dictionary or case'),
    },
    handler: async (c) => {
      const { name, id } = validate(CaseIdParams, c.req.param(), 'path');
      return c.body(await getSyncCaseJson(store, name, id, apiVersionOf(c)), 200, { 'Content-Type': JSON_TYPE });
    },
  });

  api.route({
    method: 'delete',
    path: '/api/dictionaries/{name}/cases/{id}',
    summary: 'Delete a case (soft: a tombstone at a new revision)',
    description:
      'Devices receive the deletion on their next download; the incremental breakout removes the case. Recorded in the device’s sync history.',
    tags: ['sync'],
    permission: 'data.delete',
    audit: { action: 'cases.delete', target: 'case:{name}/{id}' },
    request: { params: CaseIdParams },
    responses: { 200: json(SyncSuccess, 'deleted (or already deleted)'), 404: json(ErrorBody, 'no such dictionary or case') },
    handler: async (c) => {
      const { name, id } = validate(CaseIdParams, c.req.param(), 'path');
      const r = await deleteSyncedCase(store, name, id, deviceOf(header(c)), c.get('principal').username);
      return c.body(SUCCESS, 200, { 'Content-Type': JSON_TYPE, 'x-csw-current-revision': String(r.revision) });
    },
  });

  api.route({
    method: 'post',
    path: '/api/messages',
    summary: 'A message from CSPro logic (syncmessage)',
    description:
      'CSPro 8.1’s `syncmessage` sends `{timestamp, name, value}` (`key` for `name` is read too). The message is kept with the device ' +
      '(`x-csw-device`) and the account that sent it (table `sync_messages`); the reply, which the client hands back to logic, is ' +
      'JSON `null`, as CSWeb 8.1 answers, to every client (docs/sync.md#messages).',
    tags: ['sync'],
    permission: 'messages.write',
    bodyLimit: config.maxBodyBytes,
    request: { body: { required: true, content: { 'application/json': { schema: SyncMessageBody } } } },
    responses: {
      200: json(SyncMessageReply, 'kept'),
      400: json(ErrorBody, 'not JSON (`API-003`), or not an object naming the message (`USAGE`)'),
      413: json(ErrorBody, `larger than the body limit (\`maxBodyBytes\`, default 64 KB; \`PAYLOAD_TOO_LARGE\`)`),
    },
    handler: async (c) => {
      const body = await readJson(c, SyncMessageBody);
      await receiveSyncMessage(store, body, deviceOf(header(c)), c.get('principal').username, new Date(clock()));
      return c.body(MESSAGE_REPLY, 200, { 'Content-Type': JSON_TYPE });
    },
  });

  api.route({
    method: 'get',
    path: '/api/messages',
    summary: 'The messages devices sent (syncmessage), newest first',
    description:
      'What `POST /api/messages` kept, with the device and account that sent each. Filters: `since` (received at or after), `device`, ' +
      '`name`; pages by `limit` and `offset`, or by `before` (the last `id` of the previous page), which stays put while messages ' +
      'arrive. Messages are pruned by age and count like the logs (docs/sync.md#messages).',
    tags: ['sync'],
    permission: 'messages.read',
    request: { query: MessagesQuery },
    responses: {
      200: json(SyncMessageList, 'the page of messages'),
      400: json(ErrorBody, '`since` not an ISO 8601 time, `limit` not 1 to 1000, `offset` or `before` not a whole number (`USAGE`)'),
    },
    handler: async (c) => {
      const q = validate(MessagesQuery, c.req.query(), 'query');
      return c.json(await listSyncMessages(store, q));
    },
  });

  fileSyncRoutes(api, store, config);
}

function bodyStream(c: Context<AppEnv>): Readable {
  const s =
    c.env?.incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as unknown as NodeWebStream<Uint8Array>) : Readable.from([]));
  return s;
}

/**
 * The raw body of a file upload, chunk by chunk. Stopping early (a refused upload) leaves the
 * request stream alive, so the 413 or 403 still reaches the client (the Node adapter drains or
 * closes the rest); a client that goes away mid-body is a 400, not a server error.
 */
async function* fileBody(c: Context<AppEnv>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of bodyStream(c).iterator({ destroyOnReturn: false })) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('USAGE', `the upload was interrupted: ${(err as Error).message}`, {}, { cause: err });
  }
}

/** A missing file, folder or app in CSWeb's error shape (CswebErrorBody), which the client reads. */
function fileNotFound(c: Context<AppEnv>, err: unknown, code: 'file_not_found' | 'directory_not_found' | 'app_not_found'): Response {
  if (err instanceof AppError && err.code === 'NOT_FOUND') return c.json({ type: 'error', status: 404, code, message: err.message }, 404);
  throw err;
}

/** A file version as a download: the headers describe exactly the bytes streamed (one open descriptor). */
function download(c: Context<AppEnv>, snapshot: FileSnapshot, headers: Record<string, string>): Response {
  const all = { ...headers, 'Content-Length': String(snapshot.size), 'X-Content-Type-Options': 'nosniff' };
  if (c.req.method === 'HEAD') {
    void snapshot.close();
    return new Response(null, { status: 200, headers: all });
  }
  return new Response(Readable.toWeb(snapshot.stream()) as ReadableStream, { status: 200, headers: all });
}

/** Files, folders and application packages as the client syncs them (CSWeb's `/files`, `/folders`, `/apps`). */
function fileSyncRoutes(api: ApiBuilder, store: Store, config: HttpConfig): void {
  api.route({
    method: 'get',
    path: '/api/files/{path}/content',
    honoPath: '/api/files/:path{.+/content}',
    summary: 'Download a file of the media area (client file sync)',
    description:
      'The path is relative to the media area (a leading `media/` names the same area; those paths are answered by the media route). ' +
      '`Content-MD5` and `ETag` carry the md5; `If-None-Match` with that md5 is answered 304. The headers describe exactly the bytes sent, ' +
      'also while the file is being replaced (the old or the new version, whole).',
    tags: ['sync'],
    permission: 'files.sync',
    request: { params: PathParams },
    responses: {
      200: binary('the file'),
      304: { description: 'the client has this version' },
      404: json(CswebErrorBody, 'no such file (CSWeb’s shape, `file_not_found`)'),
    },
    handler: async (c) => {
      const path = (c.req.param('path') ?? '').slice(0, -'/content'.length);
      let opened;
      try {
        opened = await openClientFile(store, path);
      } catch (err) {
        return fileNotFound(c, err, 'file_not_found');
      }
      const { info, snapshot } = opened;
      const etag = (c.req.header('if-none-match') ?? '').replace(/"/g, '').trim();
      const headers = { ETag: info.md5, 'Content-MD5': info.md5 };
      if (etag === info.md5) {
        await snapshot.close();
        return c.body(null, 304, headers);
      }
      return download(c, snapshot, {
        ...headers,
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(info.name)}`,
      });
    },
  });

  const limit = config.maxFileBytes;
  api.route({
    method: 'put',
    path: '/api/files/{path}/content',
    honoPath: '/api/files/:path{.+/content}',
    summary: 'Upload a file to the media area (client file sync)',
    description:
      `Raw body, at most the file limit (\`maxFileBytes\`, default 100 MB; 413 \`PAYLOAD_TOO_LARGE\` as soon as it is crossed). ` +
      'A body sent with `Content-Encoding: deflate` or `gzip` (CSPro 8.1 compresses files) is inflated first, zlib or gzip as its bytes say; the limit and `Content-MD5` apply to the inflated bytes. ' +
      'With `Content-MD5` (hex) a body of another md5 is refused (403 `CHECKSUM_MISMATCH`). A Standard account may create files and replace ' +
      'files that Standard accounts wrote, not files written by an API or Administrator account or by the operator (403 `access_denied`). ' +
      'A refused upload keeps the previous version. The file is replaced atomically and is on disk before the 200.',
    tags: ['sync'],
    permission: 'files.sync',
    request: { params: PathParams },
    responses: {
      200: json(SyncFileInfo, 'stored'),
      400: json(ErrorBody, 'a path outside the media area or a folder (`PATH_INVALID`), an interrupted body (`USAGE`)'),
      403: json(
        FileRefusedBody,
        'the md5 does not match (`CHECKSUM_MISMATCH`), or the account may not replace this file (`access_denied`)',
      ),
      413: json(ErrorBody, 'larger than the file limit (`PAYLOAD_TOO_LARGE`)'),
    },
    handler: async (c) => {
      const path = (c.req.param('path') ?? '').slice(0, -'/content'.length);
      const declared = Number(c.req.header('content-length') ?? NaN);
      if (declared > limit) {
        throw new AppError('PAYLOAD_TOO_LARGE', `${path} is larger than the file limit of ${limit} bytes; the file was not stored`, {
          file: path,
          limit,
        });
      }
      const { username, role } = c.get('principal');
      // CSPro 8.1 compresses the file (docs/sync.md#compressed-bodies); Content-MD5 is that of the inflated bytes.
      const body = inflateLabelled(fileBody(c), c.req.header('content-encoding'), path);
      const info = await putClientFile(store, path, body, {
        writer: { username, role, filesWrite: c.get('rights').has('files.write') },
        expectedMd5: c.req.header('content-md5') || undefined,
        maxBytes: limit,
      });
      return c.json(info);
    },
  });

  for (const path of ['/api/folders', '/api/folders/{path}']) {
    api.route({
      method: 'get',
      path,
      ...(path.endsWith('}') ? { honoPath: '/api/folders/:path{.+}' } : {}),
      summary: 'List a folder of the media area (client file sync)',
      description:
        'Each file with its size, time and md5; `x-csw-get-file-md5: false` (CSPro 8.1 paradata listings) leaves the md5 out and the files unhashed.',
      tags: ['sync'],
      permission: 'files.sync',
      ...(path.endsWith('}') ? { request: { params: PathParams } } : {}),
      responses: {
        200: json(SyncFolder, 'the entries'),
        404: json(CswebErrorBody, 'no such folder (CSWeb’s shape, `directory_not_found`)'),
      },
      handler: async (c) => {
        try {
          return c.json(await listClientFolder(store, c.req.param('path') ?? '', { md5: wantsFileMd5(header(c)) }));
        } catch (err) {
          return fileNotFound(c, err, 'directory_not_found');
        }
      },
    });
  }

  api.route({
    method: 'get',
    path: '/api/apps',
    summary: 'List the application deployment packages',
    description:
      'The `<name>.zip` files of the apps area (`<home>/files/apps`); the build time is the file’s modification time. ' +
      'Description and version are those read from the package’s `package.json` when it was deployed, or kept by an import from CSWeb; empty for a zip put there by hand.',
    tags: ['sync'],
    permission: 'apps.read',
    responses: { 200: json(AppList, 'the packages') },
    handler: async (c) => c.json(await listApps(store)),
  });

  api.route({
    method: 'get',
    path: '/api/apps/{name}',
    summary: 'Download an application package',
    description:
      '304 when `If-None-Match` is its md5 (or its signature, the md5 of its `package.json`, kept by a deployment or an import) or `x-csw-package-build-time` is not older than its build time. The whole zip is sent (`x-csw-package-files` is not used to trim it).',
    tags: ['sync'],
    permission: 'apps.read',
    request: { params: AppNameParams },
    responses: {
      200: binary('the zip'),
      304: { description: 'the client has this version' },
      404: json(CswebErrorBody, 'no such application (CSWeb’s shape, `app_not_found`)'),
    },
    handler: async (c) => {
      const { name } = validate(AppNameParams, c.req.param(), 'path');
      let app;
      try {
        app = await openApp(store, name);
      } catch (err) {
        return fileNotFound(c, err, 'app_not_found');
      }
      const etag = (c.req.header('if-none-match') ?? '').replace(/"/g, '').trim();
      const built = Date.parse(c.req.header('x-csw-package-build-time') ?? '');
      // The signature too (md5 of its package.json): what the client sends for the package it has (docs/sync.md#apps).
      if (
        etag === app.md5 ||
        (app.signature !== undefined && etag === app.signature) ||
        (!Number.isNaN(built) && built >= app.buildTimeMs)
      ) {
        await app.snapshot.close();
        return c.body(null, 304, { ETag: app.md5 });
      }
      return download(c, app.snapshot, {
        'Content-Type': 'application/zip',
        ETag: app.md5,
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(app.name)}.zip`,
      });
    },
  });

  api.route({
    method: 'put',
    path: '/api/apps/{name}',
    summary: 'Deploy an application package',
    description:
      'The package zip as the body, as CSPro’s deployment sends it, stored as `<home>/files/apps/<name>.zip` (replaced atomically, on disk before the 200). ' +
      'A body sent with `Content-Encoding: deflate` or `gzip` is inflated first; `Content-MD5` (hex), when sent, is checked on the inflated bytes ' +
      '(403 `CHECKSUM_MISMATCH`). At most the file limit (`maxFileBytes`). Description, version, files list and signature are read from the zip’s `package.json`, ' +
      'and its `buildTime` becomes the package’s build time (else the time it was stored); a zip without one is stored all the same, ' +
      'without them, and the server log warns (docs/sync.md#apps).',
    tags: ['sync'],
    permission: 'apps.write',
    request: {
      params: AppNameParams,
      body: { required: true, content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
    },
    responses: {
      200: json(AppInfoSchema, 'stored'),
      400: json(
        ErrorBody,
        'a name that is not a package name (`PATH_INVALID`), a body labelled compressed that does not inflate (`USAGE`)',
      ),
      403: json(FileRefusedBody, 'the md5 does not match (`CHECKSUM_MISMATCH`), or the role may not deploy packages (`access_denied`)'),
      413: json(ErrorBody, 'larger than the file limit (`PAYLOAD_TOO_LARGE`)'),
    },
    handler: async (c) => {
      const { name } = validate(AppNameParams, c.req.param(), 'path');
      const declared = Number(c.req.header('content-length') ?? NaN);
      if (declared > config.maxFileBytes) {
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `${name}.zip is larger than the file limit of ${config.maxFileBytes} bytes; it was not stored`,
          {
            file: `${name}.zip`,
            limit: config.maxFileBytes,
          },
        );
      }
      const body = inflateLabelled(fileBody(c), c.req.header('content-encoding'), `${name}.zip`);
      const put = await putApp(store, name, body, {
        expectedMd5: c.req.header('content-md5') || undefined,
        maxBytes: config.maxFileBytes,
        maxSpecBytes: limitsOf(store).appPackageJsonBytes,
      });
      // A hand-made zip keeps working; the operator learns why it lists without a description.
      if (put.warning !== undefined) config.log(`sds: warning: ${put.warning}`, 'warn');
      return c.json(put.app);
    },
  });

  api.route({
    method: 'delete',
    path: '/api/apps/{name}',
    summary: 'Remove an application package',
    description: 'Removes `<home>/files/apps/<name>.zip` and the metadata kept with it; 200 with CSWeb’s success body (docs/sync.md#apps).',
    tags: ['sync'],
    permission: 'apps.write',
    request: { params: AppNameParams },
    responses: {
      200: json(SyncSuccess, 'removed'),
      400: json(ErrorBody, 'a name that is not a package name (`PATH_INVALID`)'),
      404: json(CswebErrorBody, 'no such application (CSWeb’s shape, `app_not_found`)'),
    },
    handler: async (c) => {
      const { name } = validate(AppNameParams, c.req.param(), 'path');
      try {
        await deleteApp(store, name);
      } catch (err) {
        return fileNotFound(c, err, 'app_not_found');
      }
      return c.body(SUCCESS, 200, { 'Content-Type': JSON_TYPE });
    },
  });
}
