/**
 * A CSPro sync client written for the tests from the protocol as CSPro's own client speaks it
 * (docs/sync.md#client-versions), independently of sds's code: 8.0.1 or 8.1, told apart by the
 * User-Agent only. It follows the client's rules: success is exactly 200 (206 on a download
 * chunk, 304 on a conditional file or package), errors are read as `{code, message}`, uploads are
 * zlib streams labelled `gzip` (8.0.1) or `deflate` (8.1), an 8.0.1 client refuses a server above
 * version 2, and an 8.1 client on version 3 requires the account in the token reply.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { readCssync, writeCssync, type CssyncItem } from './cssync-wire.js';

export type ClientVersion = '8.0.1' | '8.1.0';

/** What the client read from a reply it did not accept: the status and the `{code, message}` body. */
export class ClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    /** The `message` of the body, as the client shows it. */
    readonly serverMessage: string,
    readonly body: string,
  ) {
    super(`${status} ${code ?? '(no code)'}: ${serverMessage}`);
  }
}

export type BinaryItem = CssyncItem;

const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');

const cssync = writeCssync;
const readContainer = (body: Buffer) => readCssync<Record<string, unknown>>(body);

export class CsproClient {
  accessToken: string | undefined;
  refreshToken: string | undefined;
  /** The account of an 8.1 password grant (`user` of the wrapped reply). */
  user: { id: string; roleName: string } | undefined;
  apiVersion: number | undefined;
  /** Every status this client accepted, in order: the test checks none is 201 or 204. */
  readonly statuses: number[] = [];
  /** Every JSON reply, accepted or not, for the test to check against the served OpenAPI document. */
  readonly replies: { method: string; path: string; status: number; body: unknown }[] = [];
  /** The sync state of one dictionary, as the client keeps it in its sync history. */
  lastRevision: number | undefined;
  ownUploads: number[] = [];

  constructor(
    readonly url: string,
    readonly version: ClientVersion,
    readonly deviceId: string,
  ) {}

  get v3(): boolean {
    return (this.apiVersion ?? 0) >= 3;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'User-Agent': `CSPro sync client/${this.version}`,
      Accept: 'application/json',
      ...(this.accessToken ? { Authorization: `Bearer ${this.accessToken}` } : {}),
      ...extra,
    };
  }

  /** Sends a request; a status outside `ok` is a ClientError read as the client reads errors. */
  async request(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: Buffer | string } = {},
    ok = [200],
  ): Promise<Response> {
    const r = await fetch(`${this.url}/api/${path}`, { method, headers: this.headers(init.headers), body: init.body });
    if (/^application\/json/.test(r.headers.get('content-type') ?? '')) {
      const text = await r.clone().text();
      this.replies.push({ method, path: new URL(`${this.url}/api/${path}`).pathname, status: r.status, body: JSON.parse(text) });
    }
    if (!ok.includes(r.status)) {
      const text = await r.text();
      let code: string | undefined;
      let message = text;
      try {
        const e = JSON.parse(text) as { code?: unknown; message?: unknown };
        if (typeof e.code === 'string' && typeof e.message === 'string') [code, message] = [e.code, e.message];
      } catch {
        // Not JSON: the client reports only the status (a 404 becomes "invalid server URL").
      }
      throw new ClientError(r.status, code, message, text);
    }
    this.statuses.push(r.status);
    return r;
  }

  /** Token (password grant), then the server's version, as the client connects. */
  async connect(username: string, password: string): Promise<void> {
    const body = JSON.stringify({ client_id: 'cspro_android', client_secret: 'cspro', grant_type: 'password', username, password });
    const r = await this.request('POST', 'token', { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body });
    const reply = (await r.json()) as Record<string, unknown>;
    // 8.1 recognises the wrapped form by `credentials`; 8.0.1 reads the flat form only.
    const flat = (this.version === '8.1.0' && reply.credentials ? reply.credentials : reply) as Record<string, unknown>;
    if (this.version === '8.1.0' && reply.credentials) this.user = reply.user as { id: string; roleName: string };
    this.takeTokens(flat);
    const server = (await (await this.request('GET', 'server')).json()) as { deviceId: string; apiVersion?: number };
    if (typeof server.deviceId !== 'string' || server.deviceId === '') throw new Error('server info without deviceId');
    this.apiVersion = server.apiVersion ?? 0;
    if (this.version === '8.0.1' && Math.trunc(this.apiVersion) > 2) throw new Error(`8.0.1 refuses server API version ${this.apiVersion}`);
    if (this.v3 && !(this.user?.id && this.user.roleName)) throw new Error('Server version is 3.0+ but CSWeb did not send user details.');
  }

  private takeTokens(flat: Record<string, unknown>): void {
    if (typeof flat.access_token !== 'string') throw new Error(`no access_token in ${JSON.stringify(flat)}`);
    if (this.version === '8.0.1') {
      for (const k of ['expires_in', 'token_type', 'refresh_token']) if (flat[k] === undefined) throw new Error(`8.0.1 needs ${k}`);
    }
    this.accessToken = flat.access_token;
    this.refreshToken = flat.refresh_token as string;
  }

  /** The refresh grant: its reply is always read in the flat form. Returns the reply as received. */
  async refresh(): Promise<Record<string, unknown>> {
    const body = JSON.stringify({
      client_id: 'cspro_android',
      client_secret: 'cspro',
      grant_type: 'refresh_token',
      refresh_token: this.refreshToken,
    });
    const r = await this.request('POST', 'token', { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body });
    const reply = (await r.json()) as Record<string, unknown>;
    this.takeTokens(reply);
    return reply;
  }

  /** Compresses a body as this client does for its apiVersion: zlib, labelled deflate (V3) or gzip (V2). */
  private compressed(raw: Buffer): { body: Buffer; headers: Record<string, string> } {
    return { body: deflateSync(raw, { level: 9 }), headers: { 'Content-Encoding': this.v3 ? 'deflate' : 'gzip' } };
  }

  /** `POST dictionaries/`: 8.1 sends the JSON dictionary, compressed when the server is V3; 8.0.1 the .dcf text. */
  async putDictionary(text: string): Promise<void> {
    const raw = Buffer.from(text);
    const c = this.v3 ? this.compressed(raw) : { body: raw, headers: {} };
    const type = this.version === '8.1.0' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
    await this.request('POST', 'dictionaries/', { headers: { 'Content-Type': type, ...c.headers }, body: c.body });
  }

  async listDictionaries(): Promise<Record<string, unknown>[]> {
    return (await (await this.request('GET', 'dictionaries/')).json()) as Record<string, unknown>[];
  }

  /**
   * One upload chunk (`POST dictionaries/{d}/cases`): the JSON array, or the cssync container when
   * binary items go with it; compressed; the last revision of this device's previous upload in
   * `x-csw-if-revision-exists`. Returns the new revision; a 412 resets the device, as the client does.
   */
  async syncPut(dict: string, cases: unknown[], items: BinaryItem[] = []): Promise<number> {
    const raw = items.length > 0 ? cssync(cases, items) : Buffer.from(JSON.stringify(cases));
    const c = this.compressed(raw);
    const r = await this.request('POST', `dictionaries/${dict}/cases`, {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'x-csw-device': this.deviceId,
        Cookie: 'XDEBUG_SESSION=netbeans-xdebug',
        ...c.headers,
        ...(this.lastRevision !== undefined ? { 'x-csw-if-revision-exists': String(this.lastRevision) } : {}),
      },
      body: c.body,
    });
    const revision = Number(r.headers.get('x-csw-current-revision') ?? r.headers.get('etag'));
    if (!Number.isInteger(revision)) throw new Error('error 100121: no x-csw-current-revision');
    this.ownUploads.push(revision);
    return revision;
  }

  /**
   * A complete download in chunks of `count` (`GET dictionaries/{d}/cases`): 206 while more
   * remains, each next chunk after the chunk revision and the last case's uuid; a 412 clears the
   * sync state and starts again from nothing.
   */
  async syncGet(
    dict: string,
    count: number,
    universe = '',
  ): Promise<{ cases: Record<string, unknown>[]; items: BinaryItem[]; statuses: number[]; reset: boolean }> {
    let reset = false;
    for (;;) {
      const cases: Record<string, unknown>[] = [];
      const items: BinaryItem[] = [];
      const statuses: number[] = [];
      let last = this.lastRevision;
      let startAfter: string | undefined;
      try {
        for (;;) {
          const r = await this.request(
            'GET',
            `dictionaries/${dict}/cases`,
            {
              headers: {
                'Content-Type': 'application/json; charset=utf-8',
                'Cache-Control': 'no-cache, no-store, must-revalidate',
                'x-csw-device': this.deviceId,
                'x-csw-case-range-count': String(count),
                ...(universe ? { 'x-csw-universe': `"${universe}"` } : {}),
                ...(last !== undefined ? { 'x-csw-if-revision-exists': String(last) } : {}),
                ...(startAfter ? { 'x-csw-case-range-start-after': startAfter } : {}),
                ...(this.ownUploads.length ? { 'x-csw-exclude-revisions': this.ownUploads.join(',') } : {}),
              },
            },
            [200, 206],
          );
          const revision = Number(r.headers.get('x-csw-chunk-max-revision') ?? r.headers.get('etag'));
          if (!Number.isInteger(revision)) throw new Error('error 100121: no x-csw-chunk-max-revision');
          const chunk = readContainer(Buffer.from(await r.arrayBuffer()));
          cases.push(...chunk.cases);
          items.push(...chunk.items);
          statuses.push(r.status);
          last = revision;
          if (r.status === 200) break;
          const lastCase = chunk.cases.at(-1)!;
          startAfter = String(this.v3 ? lastCase.uuid : lastCase.id);
        }
      } catch (err) {
        if (err instanceof ClientError && err.status === 412 && !reset) {
          reset = true;
          this.lastRevision = undefined;
          this.ownUploads = [];
          continue;
        }
        throw err;
      }
      this.lastRevision = last;
      this.ownUploads = [];
      return { cases, items, statuses, reset };
    }
  }

  /** `PUT files/{path}/content`: `Content-MD5` of the bytes; 8.1 on V3 compresses them (`deflate`). */
  async putFile(path: string, content: Buffer): Promise<void> {
    const c = this.v3 ? this.compressed(content) : { body: content, headers: {} };
    await this.request('PUT', `files/${encodeURI(path)}/content`, {
      headers: { 'Content-Type': 'application/octet-stream', 'Content-MD5': md5(content), ...c.headers },
      body: c.body,
    });
  }

  /** `GET files/{path}/content`; undefined on 304. The Content-MD5 is checked as the client does. */
  async getFile(path: string, localMd5?: string): Promise<Buffer | undefined> {
    const r = await this.request(
      'GET',
      `files/${encodeURI(path)}/content`,
      { headers: { Accept: 'application/octet-stream', ...(localMd5 ? { 'If-None-Match': localMd5 } : {}) } },
      [200, 304],
    );
    if (r.status === 304) return undefined;
    const body = Buffer.from(await r.arrayBuffer());
    const sent = r.headers.get('content-md5');
    if (sent && sent.toLowerCase() !== md5(body)) throw new Error('error 100127: Content-MD5 mismatch');
    return body;
  }

  /** `GET folders/{path}`, with `x-csw-get-file-md5` (8.1 only). */
  async listFolder(path: string, md5s: boolean): Promise<Record<string, unknown>[]> {
    const extra: Record<string, string> = this.version === '8.1.0' ? { 'x-csw-get-file-md5': JSON.stringify(md5s) } : {};
    return (await (await this.request('GET', `folders/${encodeURI(path)}`, { headers: extra })).json()) as Record<string, unknown>[];
  }

  /** `PUT apps/{name}`: the zip with its Content-MD5 (8.1), not compressed (a zip already is). */
  async putApp(name: string, zip: Buffer): Promise<void> {
    await this.request('PUT', `apps/${encodeURIComponent(name)}`, {
      headers: { 'Content-Type': 'application/octet-stream', ...(this.version === '8.1.0' ? { 'Content-MD5': md5(zip) } : {}) },
      body: zip,
    });
  }

  async deleteApp(name: string): Promise<void> {
    await this.request('DELETE', `apps/${encodeURIComponent(name)}`);
  }

  /** `POST messages/` (syncmessage): the reply goes back to logic. */
  async syncMessage(name: string, value?: unknown): Promise<unknown> {
    const body = JSON.stringify({ timestamp: '2025-01-15T09:00:00Z', name, ...(value === undefined ? {} : { value }) });
    const r = await this.request('POST', 'messages/', {
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'x-csw-device': this.deviceId },
      body,
    });
    return r.json();
  }
}
