/**
 * A CSPro 8.1 "CSWeb data source" client, written for the tests from the protocol as
 * docs/sync.md#the-81-data-source describes it (the client's request sequence, its headers, its
 * paging and its cache), independently of sds's own code: it builds its requests and reads the
 * replies itself, and fails where the real client would fail.
 */
import { createHash, randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { writeCssync } from './cssync-wire.js';

/** The User-Agent of CSPro 8.1.1 (docs/sync.md#cspro-81-answers): the version after the slash is what the server reads. */
const CSPRO_81_AGENT = 'CSPro sync client/8.1.1 (64-bit)';

/** A refusal or failure, in the words the client shows, with the HTTP status when there was one. */
export class DataSourceError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface Identifier {
  key: string;
  uuid: string;
  position: number;
  revision?: number;
}

export interface Summary extends Identifier {
  label?: string;
  deleted?: boolean;
  verified?: boolean;
  partialSaveMode?: string;
  caseNote?: string;
}

/** A V3 case as the client holds it, with the position the server gave it. */
export interface V3Case {
  key: string;
  uuid: string;
  label?: string;
  deleted?: boolean;
  verified?: boolean;
  partialSave?: Record<string, unknown>;
  caseNote?: string;
  clock: { deviceId: string; revision: number }[];
  [level: string]: unknown;
}

export type Status = 'all' | 'notDeletedOnly' | 'partialsOnly' | 'duplicatesOnly';

/** One request of a query, as sent and as answered (for the tests to look at). */
export interface QueryLog {
  options: Record<string, unknown>;
  cacheHeader?: { serverRevision: number; positions: number[] };
  returned: number;
  resultLimit: boolean;
  placeholders: number;
}

type OpenFlag = 'mustExist' | 'openOrCreate' | 'createNew';

const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');

/** The key structure the client computes from its own dictionary (JSON form): per first-level id, length, type, numeric zero fill. */
function clientKeyStructure(dictionaryJson: string): string {
  const d = JSON.parse(dictionaryJson) as {
    defaults?: { zeroFill?: boolean };
    levels: { ids: { items: { length: number; contentType?: string; zeroFill?: boolean }[] } }[];
  };
  return d.levels[0]!.ids.items.map((i) => {
    const type = i.contentType ?? 'numeric';
    return `${i.length}${type}${type === 'numeric' ? ((i.zeroFill ?? d.defaults?.zeroFill ?? false) ? '1' : '0') : ''}`;
  }).join('');
}

export class DataSourceClient {
  /** "<exe or OS> <version>: <device id>", as the data source names itself in vector clocks. */
  readonly deviceId = `Android 8.1.0.123: ${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  private accessToken: string | undefined;
  private refreshToken: string | undefined;
  user: { id: string; roleName: string } | undefined;
  serverDeviceId: string | undefined;
  permissions: string[] = [];
  /** The local cache: position → the case and its revision, and the server revision it was current at. */
  readonly cache = new Map<number, { revision: number; json: V3Case }>();
  cacheRevision = 0;
  useCache = false;
  readonly log: QueryLog[] = [];
  /** Every request made: method and path. */
  readonly requests: string[] = [];

  constructor(
    readonly base: string,
    readonly dictionary: string,
    private readonly credentials: { username: string; password: string },
    private readonly dictionaryJson: string,
  ) {}

  private headers(extra: Record<string, string> = {}, json = true): Record<string, string> {
    return {
      'user-agent': CSPRO_81_AGENT,
      ...(json ? { accept: 'application/json' } : {}),
      ...(this.accessToken ? { authorization: `Bearer ${this.accessToken}` } : {}),
      ...extra,
    };
  }

  /** The client's reading of an error reply: `{code, message}` if the body has them, else only the status (a non-JSON 404 is "invalid server URL"). */
  private static async failure(r: Response): Promise<DataSourceError> {
    const text = await r.text();
    try {
      const body = JSON.parse(text) as { code?: unknown; message?: unknown };
      if (typeof body.code === 'string' && typeof body.message === 'string') {
        return new DataSourceError(`${body.message}. (${r.status})`, r.status, body.code);
      }
    } catch {
      // not JSON: below
    }
    if (r.status === 404) return new DataSourceError('invalid server URL (100144)');
    return new DataSourceError(`Error ${r.status}`);
  }

  /** One REST call: 401 refreshes the token once and repeats; anything but 200 fails. */
  private async call(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: Buffer; json?: boolean } = {},
  ): Promise<Response> {
    const send = () => {
      this.requests.push(`${method} ${path}`);
      return fetch(`${this.base}/api/${path}`, { method, headers: this.headers(init.headers, init.json ?? true), body: init.body });
    };
    let r = await send();
    if (r.status === 401 && (await this.refresh())) r = await send();
    if (r.status !== 200) throw await DataSourceClient.failure(r);
    return r;
  }

  private async tokenRequest(body: Record<string, string>): Promise<Response> {
    return fetch(`${this.base}/api/token`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json; charset=utf-8' }),
      body: JSON.stringify({ client_id: 'cspro_android', client_secret: 'cspro', ...body }),
    });
  }

  private async refresh(): Promise<boolean> {
    if (!this.refreshToken) return false;
    const r = await this.tokenRequest({ grant_type: 'refresh_token', refresh_token: this.refreshToken });
    if (r.status !== 200) return false;
    // The refresh reply is read flat, always.
    const body = (await r.json()) as { access_token?: string; refresh_token?: string };
    if (typeof body.access_token !== 'string') return false;
    this.accessToken = body.access_token;
    this.refreshToken = body.refresh_token ?? this.refreshToken;
    return true;
  }

  /** Drops the access token (as if it had expired) so the next call refreshes. */
  forgetAccessToken(): void {
    this.accessToken = 'expired';
  }

  /** `POST token` (password), then `GET server`: V3 and a user who is not an Administrator. */
  async connect(): Promise<void> {
    const r = await this.tokenRequest({ grant_type: 'password', username: this.credentials.username, password: this.credentials.password });
    if (r.status === 401) throw new DataSourceError('wrong username or password', 401);
    if (r.status !== 200) throw await DataSourceClient.failure(r);
    const body = (await r.json()) as { credentials?: Record<string, unknown>; user?: { id?: unknown; roleName?: unknown } };
    const tokens = (body.credentials ?? body) as { access_token?: unknown; refresh_token?: unknown };
    if (typeof tokens.access_token !== 'string') throw new DataSourceError('the token reply has no access_token');
    this.accessToken = tokens.access_token;
    this.refreshToken = typeof tokens.refresh_token === 'string' ? tokens.refresh_token : undefined;
    if (
      body.credentials &&
      typeof body.user?.id === 'string' &&
      typeof body.user.roleName === 'string' &&
      body.user.id &&
      body.user.roleName
    ) {
      this.user = { id: body.user.id, roleName: body.user.roleName };
    }
    const server = (await (await this.call('GET', 'server')).json()) as { deviceId?: unknown; apiVersion?: unknown };
    if (typeof server.deviceId !== 'string') throw new DataSourceError('the server reply has no deviceId');
    this.serverDeviceId = server.deviceId;
    const version = typeof server.apiVersion === 'number' ? server.apiVersion : 0;
    if (Math.trunc(version) < 3)
      throw new DataSourceError('You can only connect to CSWeb servers that are running version 8.1 or greater.');
    if (!this.user) throw new DataSourceError('Server version is 3.0+ but CSWeb did not send user details.');
    if (this.user.roleName.toLowerCase() === 'administrator') {
      throw new DataSourceError(`You cannot use the CSWeb data source while connecting with role '${this.user.roleName}'.`);
    }
  }

  private async metadata(): Promise<{ permissions: string[]; dictionaryKeyStructure?: string; maxRevision: number }> {
    return (await (await this.call('GET', `dictionaries/${this.dictionary}/metadata`)).json()) as {
      permissions: string[];
      dictionaryKeyStructure?: string;
      maxRevision: number;
    };
  }

  /**
   * Opens the data source: the metadata (a 404 uploads the dictionary unless it must exist),
   * `DELETE …/data` when creating anew (not after an upload), the key structure check.
   */
  async open(flag: OpenFlag = 'openOrCreate'): Promise<void> {
    const name = this.dictionary;
    let meta: Awaited<ReturnType<DataSourceClient['metadata']>> | undefined;
    let clear = flag === 'createNew';
    try {
      meta = await this.metadata();
    } catch (err) {
      const e = err as DataSourceError;
      if (e.status === 403) {
        throw new DataSourceError(
          `The data source '${name}' is not accessible due to insufficient privileges using the role '${this.user!.roleName}'.`,
          403,
        );
      }
      if (e.status !== 404) throw err;
      if (flag === 'mustExist') throw new DataSourceError(`The data source '${name}' does not exist on CSWeb.`, 404);
      // The dictionary as JSON, compressed as a V3 server takes uploads.
      try {
        await this.call('POST', 'dictionaries/', {
          headers: { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'deflate' },
          body: deflateSync(Buffer.from(this.dictionaryJson), { level: 9 }),
        });
      } catch (upload) {
        const u = upload as DataSourceError;
        if (u.status === 403) {
          throw new DataSourceError(
            `You cannot add or update a dictionary on CSWeb due to insufficient privileges using the role '${this.user!.roleName}'.`,
            403,
          );
        }
        throw upload;
      }
      clear = false;
    }
    if (clear) {
      await this.clear();
      meta = undefined;
    }
    meta ??= await this.metadata();
    if ((meta.dictionaryKeyStructure ?? '') !== clientKeyStructure(this.dictionaryJson)) {
      throw new DataSourceError(`The dictionary '${name}' on CSWeb is incompatible with this version.`);
    }
    this.permissions = meta.permissions;
    this.cacheRevision = meta.maxRevision;
  }

  /** `DELETE dictionaries/{d}/data`. */
  async clear(): Promise<void> {
    try {
      await this.call('DELETE', `dictionaries/${this.dictionary}/data`);
    } catch (err) {
      if ((err as DataSourceError).status === 403) {
        throw new DataSourceError(
          `The cases in data source '${this.dictionary}' cannot be deleted due to insufficient privileges using the role '${this.user!.roleName}'.`,
          403,
        );
      }
      throw err;
    }
    this.cache.clear();
  }

  /**
   * `GET dictionaries/{d}/cases` with the options header, and the cache header when the cache is
   * on and holds cases; placeholders are filled from the cache, whole cases go into it.
   */
  async query(options: Record<string, unknown>): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'x-csw-cases-options': JSON.stringify(options) };
    let cacheHeader: QueryLog['cacheHeader'];
    if (this.useCache && options.content === 'cases' && this.cache.size > 0) {
      cacheHeader = { serverRevision: this.cacheRevision, positions: [...this.cache.keys()] };
      headers['x-csw-cases-cache'] = deflateSync(Buffer.from(JSON.stringify({ exclude: cacheHeader }))).toString('base64');
    }
    const body = (await (await this.call('GET', `dictionaries/${this.dictionary}/cases`, { headers })).json()) as Record<string, unknown>;
    const content = String(options.content);
    let returned = 0;
    let placeholders = 0;
    if (content !== 'count') {
      const items = body[content];
      if (!Array.isArray(items)) throw new DataSourceError(`the reply has no ${content} array`);
      returned = items.length;
      if (content === 'cases') {
        const metadata = body.metadata;
        if (!Array.isArray(metadata) || metadata.length !== items.length) throw new DataSourceError('cases and metadata differ in length');
        items.forEach((item, i) => {
          const meta = metadata[i] as { position: number; revision: number };
          if (!(meta.position >= 1)) throw new DataSourceError(`position ${meta.position}`);
          if (Object.keys(item as object).length === 0) {
            placeholders += 1;
            const cached = this.cache.get(meta.position);
            if (!cached) throw new DataSourceError(`The CSWeb cache does not contain the case with position: ${meta.position}`);
            items[i] = cached.json;
          } else if (this.useCache) {
            this.cache.set(meta.position, { revision: meta.revision, json: item as V3Case });
          }
        });
      }
    }
    this.log.push({ options, ...(cacheHeader ? { cacheHeader } : {}), returned, resultLimit: 'resultLimit' in body, placeholders });
    return body;
  }

  /** The cache is current up to the server's newest revision now (after the client has read what it wanted). */
  async markCacheCurrent(): Promise<void> {
    this.cacheRevision = (await this.metadata()).maxRevision;
  }

  /** The number of cases (live ones unless a status is given). */
  async count(status: Status = 'notDeletedOnly', filter?: Record<string, unknown>): Promise<number> {
    // As the client sends it: a count with start parameters also sends limit 1.
    const body = await this.query(filter ? { content: 'count', status, filter, limit: 1 } : { content: 'count', status });
    return body.count as number;
  }

  /** Whether a live case has this key. */
  async containsKey(key: string): Promise<boolean> {
    return (await this.count('notDeletedOnly', { operator: '=', type: 'key', value: key })) > 0;
  }

  /** One case by key (live), uuid or position (any): `order: position`, `limit: 1`, metadata. */
  async readCase(
    by: { key: string } | { uuid: string } | { position: number },
  ): Promise<{ case: V3Case; position: number; revision: number } | undefined> {
    const [status, type, value] =
      'key' in by ? ['notDeletedOnly', 'key', by.key] : 'uuid' in by ? ['all', 'uuid', by.uuid] : ['all', 'position', by.position];
    const body = await this.query({
      content: 'cases',
      status,
      filter: { operator: '=', type, value },
      order: 'position',
      limit: 1,
      requestMetadata: true,
    });
    const cases = body.cases as V3Case[];
    if (cases.length === 0) return undefined;
    const meta = (body.metadata as { position: number; revision: number }[])[0]!;
    return { case: cases[0]!, ...meta };
  }

  /**
   * An iterator as the client runs it: pages of 1000 identifiers or summaries, or of 50, 100, 150 …
   * up to 1000 whole cases; the offset moves by what came back; it asks again while a page was cut
   * by the server (`resultLimit`) or, without a limit of its own, until a page comes back empty.
   */
  async iterate<T>(
    content: 'identifiers' | 'summaries' | 'cases',
    status: Status,
    opts: { method?: 'key' | 'position'; ascending?: boolean; start?: Record<string, unknown>; offset?: number; limit?: number } = {},
  ): Promise<T[]> {
    const out: T[] = [];
    let offset = opts.offset ?? 0;
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    let request = 0;
    for (;;) {
      if (out.length === limit) return out;
      request += 1;
      const step = content === 'cases' ? Math.min(request * 50, 1000) : 1000;
      const remaining = limit - out.length;
      const full = remaining <= step;
      const options: Record<string, unknown> = { content, status };
      if (content === 'cases' || this.useCache) options.requestMetadata = true;
      if (opts.method !== undefined || opts.ascending !== undefined) {
        options.sort = {
          ...(opts.method ? { order: opts.method } : {}),
          ...(opts.ascending !== undefined ? { ascending: opts.ascending } : {}),
        };
      }
      if (opts.start) options.filter = opts.start;
      if (offset !== 0) options.offset = offset;
      options.limit = full ? remaining : step;
      const body = await this.query(options);
      const items = body[content] as T[];
      if (items.length === 0) {
        if ('resultLimit' in body) throw new DataSourceError('an empty page said resultLimit');
        return out;
      }
      out.push(...items);
      offset += items.length;
      if (full && !('resultLimit' in body)) return out;
    }
  }

  /** `POST dictionaries/{d}/cases`: the case, its own clock entry ticked, deflated, with binary contents in a cssync container. */
  async writeCase(c: V3Case, binaries: Buffer[] = []): Promise<void> {
    const own = c.clock.find((e) => e.deviceId === this.deviceId);
    if (own) own.revision += 1;
    else c.clock.push({ deviceId: this.deviceId, revision: 1 });
    const json = Buffer.from(JSON.stringify([c]));
    let body: Buffer = json;
    if (binaries.length > 0) {
      body = writeCssync(
        [c],
        binaries.map((content) => ({ header: { uuid: c.uuid, signature: md5(content) }, content })),
      );
    }
    await this.call('POST', `dictionaries/${this.dictionary}/cases`, {
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'deflate', 'x-csw-device': this.deviceId },
      body: deflateSync(body, { level: 9 }),
    });
  }

  /** Delete or undelete: read the case by position, flip `deleted`, write it again when it changed. */
  async deleteCase(position: number, deleted = true): Promise<void> {
    const got = await this.readCase({ position });
    if (!got) throw new DataSourceError('case not found');
    if ((got.case.deleted ?? false) === deleted) return;
    const c: V3Case = { ...got.case };
    if (deleted) c.deleted = true;
    else delete c.deleted;
    delete c.position;
    await this.writeCase(c);
  }

  /** `GET dictionaries/{d}/binary-data/{signature}`: the bytes, checked against `Content-MD5`. */
  async binaryData(signature: string, dictionary = this.dictionary): Promise<Buffer> {
    const r = await this.call('GET', `dictionaries/${dictionary}/binary-data/${signature}`, {
      headers: { accept: 'application/octet-stream' },
      json: false,
    });
    const bytes = Buffer.from(await r.arrayBuffer());
    const sent = r.headers.get('content-md5');
    if (sent && sent.toLowerCase() !== md5(bytes))
      throw new DataSourceError('the downloaded content does not match its Content-MD5 (100127)');
    return bytes;
  }
}
