import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateSync, gzipSync } from 'node:zlib';
import { parseDictionary } from '../../src/cspro/dictionary/parse-dictionary.js';
import { textToCase } from '../../src/cspro/case/text-to-case.js';
import { fixture } from './temp-home.js';
import { readCssync, writeCssync } from './cssync-wire.js';
import type { TestServer, UserKey } from './http-server.js';

/** A case as the client sends and receives it. */
export interface WireCase {
  id: string;
  caseids: string;
  label?: string;
  deleted?: boolean;
  verified?: boolean;
  clock: { deviceId: string; revision: number }[];
  'level-1'?: string;
  data?: string[];
  notes?: unknown[];
}

/**
 * `n` Popstan cases built from the fixture's text lines, each with a fresh guid and a clock of
 * `device` at 1. Even cases carry `level-1` (a JSON string, CSPro ≥ 7.5), odd ones the pre-7.5
 * `data` lines, so both content forms travel.
 */
export function popstanCases(n: number, device: string): WireCase[] {
  const lines = readFileSync(fixture('popstan-census.dat'), 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const groups: string[][] = [];
  let key = '';
  for (const line of lines) {
    const k = line.slice(1, 19);
    if (k !== key) groups.push([]);
    key = k;
    groups.at(-1)!.push(line);
  }
  const out: WireCase[] = [];
  for (let i = 0; i < n; i++) {
    const g = groups[i % groups.length]!;
    const base = { id: randomUUID(), caseids: g[0]!.slice(1, 19), clock: [{ deviceId: device, revision: 1 }] };
    out.push(i % 2 === 0 ? { ...base, 'level-1': levelFromLines(g) } : { ...base, data: g });
  }
  return out;
}

let popstan: ReturnType<typeof parseDictionary> | undefined;

/** The `level-1` JSON text of Popstan text lines, as a 7.5+ client would send it. */
export function levelFromLines(lines: string[]): string {
  popstan ??= parseDictionary(readFileSync(fixture('popstan-census.json.dcf')));
  return JSON.stringify(textToCase(popstan, lines).level1);
}

export type Encoding = 'zlib' | 'gzip' | 'identity';

/** Drives the protocol as the data-collection client does, for one device. */
export class SyncDevice {
  /** Revisions of this device's uploads since its last complete download. */
  ownUploads: number[] = [];
  lastRevision: number | undefined;

  constructor(
    /** The server, or anything that calls one as a user (nginx in front of several nodes). */
    private readonly ts: Pick<TestServer, 'call'>,
    readonly deviceId: string | null,
    private readonly user: UserKey = 'standard',
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'user-agent': 'CSPro sync client/8.0',
      accept: 'application/json',
      ...(this.deviceId ? { 'x-csw-device': this.deviceId } : {}),
      ...extra,
    };
  }

  /** POST one chunk; returns the response (revision remembered when 200). */
  async put(dict: string, cases: unknown[], encoding: Encoding = 'zlib'): Promise<Response> {
    const json = Buffer.from(JSON.stringify(cases));
    const body = encoding === 'zlib' ? deflateSync(json) : encoding === 'gzip' ? gzipSync(json) : json;
    const r = await this.ts.call(this.user, `/api/dictionaries/${dict}/cases`, {
      method: 'POST',
      headers: this.headers({
        'content-type': 'application/json; charset=utf-8',
        ...(encoding !== 'identity' ? { 'content-encoding': 'gzip' } : {}),
        ...(this.lastRevision !== undefined ? { 'x-csw-if-revision-exists': String(this.lastRevision) } : {}),
      }),
      body,
    });
    if (r.status === 200) this.ownUploads.push(Number(r.headers.get('x-csw-current-revision')));
    return r;
  }

  /**
   * POST one chunk in the cssync container (binary items after the case JSON), zlib-compressed as
   * the client sends it. Written here byte by byte from the layout of docs/sync.md#binary-items,
   * not with sds's writer.
   */
  async putContainer(dict: string, cases: unknown[], items: { header: Record<string, unknown>; content: Buffer }[]): Promise<Response> {
    const r = await this.ts.call(this.user, `/api/dictionaries/${dict}/cases`, {
      method: 'POST',
      headers: this.headers({
        'content-type': 'application/json; charset=utf-8',
        'content-encoding': 'gzip',
        ...(this.lastRevision !== undefined ? { 'x-csw-if-revision-exists': String(this.lastRevision) } : {}),
      }),
      body: deflateSync(writeCssync(cases, items)),
    });
    if (r.status === 200) this.ownUploads.push(Number(r.headers.get('x-csw-current-revision')));
    return r;
  }

  /** Binary items received in cssync containers by `get`, by signature. */
  binaries = new Map<string, { header: Record<string, unknown>; content: Buffer }>();

  /**
   * A complete download in chunks of `count`, resuming after each 206 with the chunk revision and
   * the guid cursor, as the client does. Returns the cases and every response's status and headers.
   */
  async get(dict: string, count: number): Promise<{ cases: WireCase[]; pages: { status: number; range: string; revision: number }[] }> {
    const cases: WireCase[] = [];
    const pages: { status: number; range: string; revision: number }[] = [];
    let startAfter: string | undefined;
    let last = this.lastRevision;
    for (let guard = 0; guard < 10_000; guard++) {
      const r = await this.ts.call(this.user, `/api/dictionaries/${dict}/cases`, {
        headers: this.headers({
          'x-csw-case-range-count': String(count),
          ...(last !== undefined ? { 'x-csw-if-revision-exists': String(last) } : {}),
          ...(startAfter ? { 'x-csw-case-range-start-after': startAfter } : {}),
          ...(this.ownUploads.length ? { 'x-csw-exclude-revisions': this.ownUploads.join(',') } : {}),
        }),
      });
      if (r.status !== 200 && r.status !== 206) throw new Error(`download: ${r.status} ${await r.text()}`);
      const chunk = readChunk(Buffer.from(await r.arrayBuffer()), this.binaries);
      const revision = Number(r.headers.get('x-csw-chunk-max-revision'));
      if (r.headers.get('etag') !== String(revision)) throw new Error('ETag differs from x-csw-chunk-max-revision');
      pages.push({ status: r.status, range: r.headers.get('x-csw-case-range-count') ?? '', revision });
      cases.push(...chunk);
      last = revision;
      if (r.status === 200) break;
      startAfter = chunk.at(-1)!.id;
    }
    this.lastRevision = last;
    this.ownUploads = [];
    return { cases, pages };
  }
}

/**
 * A download body: a JSON array, or the cssync container (docs/sync.md#binary-items) whose items
 * go to `binaries`. Read byte by byte from the layout, independently of sds's reader.
 */
function readChunk(body: Buffer, binaries: Map<string, { header: Record<string, unknown>; content: Buffer }>): WireCase[] {
  const { cases, items } = readCssync<WireCase>(body);
  for (const it of items) binaries.set(String(it.header.signature), it);
  return cases;
}
