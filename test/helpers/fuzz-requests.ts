// Seeded fuzz requests for a running `sds serve` (test/e2e/http/fuzz.test.ts and bench/soak.ts):
// the routes come from the served OpenAPI document, the requests from a small seeded PRNG.
// fuzz-wire.ts sends them (malformed framing included), fuzz-judge.ts says what is wrong.
import { randomUUID } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import type { OpenApiDoc } from './openapi-validate.js';

/** mulberry32: a tiny seeded PRNG, so a failing run can be replayed from its seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.next() * 256);
    return b;
  }
}

type OpSpec = {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};

/** One documented operation of the OpenAPI document. */
export interface Operation {
  method: string;
  template: string;
  spec: OpSpec;
}

/** Every path and method of the document (the root `.php` scripts and the token route are in it). */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, spec] of Object.entries(ops)) out.push({ method: method.toUpperCase(), template, spec: spec as unknown as OpSpec });
  }
  return out;
}

export type Role = 'admin' | 'api' | 'standard' | 'none' | 'forged';

/** What the generator knows of the server's data, so some requests are valid and reach deep. */
export interface FuzzWorld {
  tokens: Record<'admin' | 'api' | 'standard', string>;
  /** BREAKOUT_WEBHOOK_TOKEN and SURVEY_WEBHOOK_TOKEN given to the server. */
  statusToken: string;
  webhookToken: string;
  dictionaries: string[];
  caseIds: string[];
  files: string[];
  /** A valid dictionary file (JSON form) for uploads. */
  dcf: Buffer;
  /** Valid sync cases' `level-1` and caseids of the first dictionary, to build uploads from. */
  sampleCase: { caseids: string; level: string };
}

/** One request as sent on the wire; `framing` says how its body is framed. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: [string, string][];
  body: Buffer;
  framing: 'exact' | 'cl-short' | 'cl-long' | 'abort' | 'chunked' | 'bad-chunked';
  role: Role;
  /** The documented operation aimed at (undefined for an unknown path or a wrong verb). */
  op?: Operation;
  /** What was done to it, for the report. */
  shape: string[];
}

const HOSTILE_SEGMENTS = [
  '..%2f..%2f..%2fetc%2fpasswd',
  '..%2F..%2Fsds.db',
  '%2e%2e',
  '..',
  '.',
  '%00',
  'a%00b',
  '%ff%fe',
  '%',
  '%zz',
  "x'%20OR%20'1'%3D'1",
  '1%3BDROP%20TABLE%20cases',
  '%E2%80%AE%F0%9F%98%80%C3%B1',
  '%ED%A0%80',
  'CON',
  '~root',
  '-1',
  '0',
  '99999999999999999999999',
  '1e309',
  'NaN',
  '%20',
  '%5C..%5C..%5Cwindows',
  '%252e%252e%252f',
];

function longSegment(rng: Rng): string {
  return rng.pick(['a', 'Z', '%41', '%C3%A9', '9']).repeat(rng.pick([300, 2000, 9000]));
}

function hostileValue(rng: Rng): string {
  return rng.chance(0.1) ? longSegment(rng) : rng.pick(HOSTILE_SEGMENTS);
}

function validParam(rng: Rng, name: string, world: FuzzWorld): string {
  switch (name) {
    case 'name':
    case 'dictionary':
      return rng.pick(world.dictionaries);
    case 'id':
      return String(rng.pick([1, 2, 3, ...(world.caseIds.length ? [world.caseIds[0]!] : [])]));
    case 'filename':
      return encodeURIComponent(rng.pick(world.files).replace(/^.*\//, ''));
    case 'path':
      return rng.pick(world.files).split('/').map(encodeURIComponent).join('/');
    case 'job_id':
      return randomLike(rng);
    default:
      return 'x';
  }
}

function randomLike(rng: Rng): string {
  return rng
    .bytes(16)
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
}

function fillPath(rng: Rng, op: Operation, world: FuzzWorld, shape: string[]): string {
  return op.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'id' && op.template.includes('/cases/')) {
      if (rng.chance(0.6)) return rng.pick(world.caseIds.length ? world.caseIds : [randomUUID()]);
    }
    if (rng.chance(0.55)) return validParam(rng, name, world);
    const v = hostileValue(rng);
    shape.push(`path ${name}=${v.slice(0, 40)}`);
    return v;
  });
}

const QUERY_VALUES = ['-1', '0', '1', '1000', '1000000', 'abc', '', '1e309', '1.5', 'true', "' OR 1=1 --", '%00', 'null', '[]'];

function query(rng: Rng, op: Operation | undefined, world: FuzzWorld, shape: string[]): string {
  const names = (op?.spec.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const parts: string[] = [];
  for (const n of names) {
    if (!rng.chance(0.5)) continue;
    const valid =
      n === 'dictionary' || n === 'dictionaries' ? rng.pick(world.dictionaries) : rng.pick(['1', '10', 'true', 'error', 'completed']);
    const v = rng.chance(0.5) ? valid : rng.chance(0.1) ? 'x'.repeat(rng.pick([1000, 6000])) : rng.pick(QUERY_VALUES);
    parts.push(`${n}=${encodeURIComponent(v)}`);
  }
  if (rng.chance(0.15)) {
    parts.push(rng.pick(['limit=1&limit=2', 'a[b]=c', '__proto__[x]=1', 'constructor.prototype.x=1', '%ff=%fe', 'x=' + '%'.repeat(10)]));
    shape.push('odd query');
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The JSON body of a valid request of `op` (a starting point for mutations). */
function validJson(rng: Rng, op: Operation, world: FuzzWorld): unknown {
  const dict = rng.pick(world.dictionaries);
  switch (`${op.method} ${op.template}`) {
    case 'POST /api/token':
      return rng.chance(0.5)
        ? {
            grant_type: 'password',
            username: rng.pick(['nobody', 'fuzz-user', 'admin ']),
            password: 'wrong-password-123',
            client_id: 'cspro_android',
            client_secret: 'cspro',
          }
        : { grant_type: 'refresh_token', refresh_token: randomLike(rng) };
    case 'POST /api/dictionaries/{name}/cases': {
      const n = rng.int(1, 4);
      return Array.from({ length: n }, () => ({
        id: randomUUID(),
        caseids: world.sampleCase.caseids,
        label: 'fuzz',
        deleted: false,
        verified: rng.chance(0.2),
        clock: [{ deviceId: 'fuzz-tablet', revision: rng.int(0, 5) }],
        'level-1': world.sampleCase.level,
        notes: [],
      }));
    }
    case 'POST /api/breakout/start':
      return { dictionaries: [dict], threads: rng.int(1, 2), overwrite: rng.chance(0.5) };
    case 'POST /api/breakout/trigger':
      return { dictionary: dict, mode: rng.pick(['selective', 'full']) };
    case 'POST /scheduler/add':
      return {
        dictionary: dict,
        cron_expression: rng.pick(['0 2 * * *', '*/5 * * * *', '61 * * * *', '@daily']),
        enabled: rng.chance(0.5),
      };
    case 'PUT /scheduler/update':
      return { id: rng.int(1, 3), cron_expression: '0 3 * * *', enabled: rng.chance(0.5) };
    case 'PUT /scheduler/toggle':
      return { id: rng.int(1, 3) };
    case 'POST /api/webhooks':
    case 'PUT /api/webhooks/{id}':
      // A closed loopback port: deliveries fail at once instead of waiting on a remote host.
      return {
        name: `fuzz-${rng.int(1, 99)}`,
        url: 'http://127.0.0.1:9/hook',
        events: ['case_uploaded', rng.pick(['case_deleted', 'nope'])],
        active: rng.chance(0.5),
      };
    case 'POST /breakout-webhook.php':
      return {
        event: rng.pick(['case_uploaded', 'case_modified', 'dictionary_uploaded', 'bogus']),
        dictionary: dict,
        case_id: randomUUID(),
        changes: { a: 1 },
        version: '1',
      };
    case 'POST /dictionary-schema-webhook.php':
      return { dictionary: dict };
    case 'POST /api/messages':
      return { timestamp: '2024-03-01T10:00:00Z', name: rng.pick(['status', 'ping']), value: rng.pick(['ok', { n: 1 }]) };
    default:
      return {};
  }
}

function deepNest(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** Mutations of a JSON value: wrong types, missing or extra fields, huge or odd strings. */
function mutateJson(rng: Rng, v: unknown, shape: string[]): unknown {
  const kinds = ['drop', 'retype', 'huge', 'unicode', 'extra', 'proto', 'number'];
  const kind = rng.pick(kinds);
  const target = Array.isArray(v) ? v[0] : v;
  if (!target || typeof target !== 'object') return v;
  const obj = target as Record<string, unknown>;
  const keys = Object.keys(obj);
  const key = keys.length ? rng.pick(keys) : 'x';
  shape.push(`json ${kind} ${key}`);
  switch (kind) {
    case 'drop':
      delete obj[key];
      break;
    case 'retype':
      obj[key] = rng.pick([null, 0, -1, true, [], {}, [1, 2], 'str', 1.5, 2 ** 53 + 1]);
      break;
    case 'huge':
      // Big but bounded: the suite must stay fast and the store small.
      obj[key] = rng.pick(['x', 'é', '\u{1F600}']).repeat(rng.pick([70_000, 300_000]));
      break;
    case 'unicode':
      obj[key] = rng.pick([
        '\ud800',
        'a\u0000b',
        '\u202e\u200b',
        '\uffff',
        "'; DROP TABLE cases; --",
        '../../etc/passwd',
        '<script>alert(1)</script>',
      ]);
      break;
    case 'extra':
      obj[`extra_${rng.int(0, 9)}`] = { nested: [1, { x: 'y' }] };
      break;
    case 'proto': {
      const inject = '"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}';
      // An empty object takes the keys without a comma after them.
      return JSON.parse(
        JSON.stringify(v).replace(/^(\[?)\{(\}?)/, (_m, open: string, close: string) => `${open}{${inject}${close === '}' ? '}' : ','}`),
      );
    }
    case 'number':
      obj[key] = rng.pick([1e308, -0, 1.2345678901234568e29, -2147483649]);
      break;
  }
  return v;
}

/** A body as JSON text, sometimes broken or deeply nested. */
function jsonText(rng: Rng, value: unknown, shape: string[]): string {
  const r = rng.next();
  if (r < 0.08) {
    const depth = rng.pick([1000, 20_000, 200_000]);
    shape.push(`deep nesting ${depth}`);
    return rng.chance(0.5) ? deepNest(depth, '[', ']') : `{"a":${deepNest(depth, '{"a":', '}').replace(/\{"a":\}/, '1')}}`;
  }
  const text = JSON.stringify(value);
  if (r < 0.16) {
    shape.push('truncated json');
    return text.slice(0, Math.max(0, rng.int(0, text.length - 1)));
  }
  if (r < 0.2) {
    shape.push('not json');
    return rng.pick(['', 'null', '"x"', '12', 'tru', '{"a":1}{"b":2}', '\uFEFF' + text, text + ' trailing']);
  }
  return text;
}

function multipart(rng: Rng, world: FuzzWorld, shape: string[]): { contentType: string; body: Buffer } {
  const b = rng.pick(['B', '----fuzz' + rng.int(0, 1e6), 'x'.repeat(70)]);
  const label = rng.chance(0.8) ? `fz${rng.int(0, 9999)}` : hostileValue(rng);
  const fileField = rng.chance(0.85) ? 'file' : 'upload';
  const file = rng.chance(0.7) ? world.dcf : rng.bytes(rng.int(0, 2000));
  const head = Buffer.from(
    `--${b}\r\nContent-Disposition: form-data; name="label"\r\n\r\n${label}\r\n--${b}\r\nContent-Disposition: form-data; name="${fileField}"; filename="x.dcf"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${b}--\r\n`);
  let body = Buffer.concat([head, file, tail]);
  const kind = rng.pick([
    'valid',
    'valid',
    'no-close',
    'crlf-end',
    'cut-in-headers',
    'cut-in-file',
    'wrong-boundary',
    'no-boundary',
    'two-files',
    'empty',
  ]);
  if (fileField !== 'file') shape.push('file part under another name');
  shape.push(`multipart ${kind}`);
  let contentType = `multipart/form-data; boundary=${b}`;
  switch (kind) {
    case 'no-close':
      body = Buffer.concat([head, file]);
      break;
    case 'crlf-end':
      body = Buffer.concat([head, file, Buffer.from('\r\n')]);
      break;
    case 'cut-in-headers':
      body = head.subarray(0, rng.int(1, head.length - 1));
      break;
    case 'cut-in-file':
      body = Buffer.concat([head, file.subarray(0, Math.floor(file.length / 2))]);
      break;
    case 'wrong-boundary':
      contentType = 'multipart/form-data; boundary=OTHER';
      break;
    case 'no-boundary':
      contentType = 'multipart/form-data';
      break;
    case 'two-files':
      body = Buffer.concat([
        head,
        file,
        Buffer.from(`\r\n--${b}\r\nContent-Disposition: form-data; name="file"; filename="y.dcf"\r\n\r\n`),
        file,
        tail,
      ]);
      break;
    case 'empty':
      body = Buffer.alloc(0);
      break;
  }
  return { contentType, body };
}

function mutateText(rng: Rng, text: Buffer, shape: string[]): Buffer {
  const kind = rng.pick(['valid', 'valid', 'truncate', 'flip', 'garbage', 'dup']);
  shape.push(`text ${kind}`);
  switch (kind) {
    case 'truncate':
      return text.subarray(0, rng.int(0, text.length));
    case 'flip': {
      const copy = Buffer.from(text);
      for (let i = 0; i < 20; i++) copy[rng.int(0, copy.length - 1)] = rng.int(0, 255);
      return copy;
    }
    case 'garbage':
      return rng.bytes(rng.int(0, 5000));
    case 'dup':
      return Buffer.concat([text, text]);
    default:
      return text;
  }
}

/** Content-Encoding of a body: none, gzip/deflate, truncated, a lie, or a bounded bomb. */
function encode(rng: Rng, body: Buffer, headers: [string, string][], shape: string[]): Buffer {
  const r = rng.next();
  if (r < 0.55) return body;
  headers.push(['content-encoding', rng.pick(['gzip', 'gzip', 'deflate', 'br', 'x-unknown', 'gzip, gzip'])]);
  const kind = rng.pick(['gzip', 'zlib', 'truncated-gzip', 'truncated-zlib', 'plain-claimed', 'bomb']);
  shape.push(`encoding ${headers.at(-1)![1]} ${kind}`);
  switch (kind) {
    case 'gzip':
      return gzipSync(body);
    case 'zlib':
      return deflateSync(body);
    case 'truncated-gzip': {
      const z = gzipSync(body);
      return z.subarray(0, rng.int(0, Math.max(0, z.length - 1)));
    }
    case 'truncated-zlib': {
      const z = deflateSync(body);
      return z.subarray(0, rng.int(0, Math.max(0, z.length - 1)));
    }
    case 'plain-claimed':
      return body;
    default:
      // 32 MB of brackets or spaces in about 32 KB: bounded, but far above any JSON body limit.
      return gzipSync(Buffer.alloc(32 * 1024 * 1024, rng.pick(['[', ' ', 'a'])));
  }
}

const ROLES: Role[] = ['admin', 'api', 'standard', 'none', 'forged'];

function authHeader(rng: Rng, role: Role, op: Operation | undefined, world: FuzzWorld): [string, string][] {
  const t = op?.template ?? '';
  if (t === '/breakout-status-webhook.php') {
    if (role === 'none') return [];
    return [['authorization', role === 'forged' ? 'Bearer wrong-static-token' : `Bearer ${world.statusToken}`]];
  }
  if (t.endsWith('.php')) {
    if (role === 'none') return [];
    return [['x-webhook-token', role === 'forged' ? 'wrong-webhook-token' : world.webhookToken]];
  }
  switch (role) {
    case 'none':
      return [];
    case 'forged':
      return [
        [
          'authorization',
          rng.pick([
            'Bearer ' + 'e'.repeat(40),
            'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
            'Basic YWRtaW46YWRtaW4=',
            'Bearer',
            'bearer  ' + world.tokens.admin + 'x',
          ]),
        ],
      ];
    default:
      return [['authorization', `Bearer ${world.tokens[role]}`]];
  }
}

function syncHeaders(rng: Rng, op: Operation, headers: [string, string][], shape: string[]): void {
  const names = (op.spec.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
  for (const n of names) {
    if (!rng.chance(0.4)) continue;
    const v = rng.chance(0.5)
      ? rng.pick(['1', '0', '100', 'fuzz-device', randomUUID(), '1,2,3'])
      : rng.pick(['-1', 'abc', '1e309', '9'.repeat(40), '', ',,,', '1,x', 'ab\u00e9'.replace('\u00e9', 'e')]);
    headers.push([n, v]);
    shape.push(`${n}: ${v.slice(0, 20)}`);
  }
}

/** One seeded request aimed at `op` (or, now and then, a wrong verb or an unknown path). */
export function generateRequest(rng: Rng, op: Operation, world: FuzzWorld): FuzzRequest {
  const shape: string[] = [];
  const role = rng.chance(0.6) ? rng.pick<Role>(['admin', 'api', 'standard']) : rng.pick(ROLES);
  let method = op.method;
  let target: Operation | undefined = op;
  let path = fillPath(rng, op, world, shape);
  if (rng.chance(0.04)) {
    method = rng.pick(['PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'DELETE', 'PUT']);
    if (method !== op.method) {
      shape.push(`verb ${method}`);
      target = undefined;
    } else method = op.method;
  } else if (rng.chance(0.03)) {
    path = rng.pick([
      '/api/../sds.db',
      '/api/%2e%2e/%2e%2e/etc/passwd',
      '//api//dictionaries',
      '/api/dictionaries/',
      '/API/DICTIONARIES',
      '/index.php',
      '/api/nothing',
    ]);
    shape.push('odd path');
    target = undefined;
  }
  // A `.` or `..` segment is resolved by the server's URL parser: the request no longer aims at `op`.
  if (/\/(\.|%2e){1,2}(\/|$)/i.test(path)) target = undefined;
  path += query(rng, target, world, shape);
  const headers: [string, string][] = [['host', '127.0.0.1'], ...authHeader(rng, role, op, world)];
  if (role !== 'admin' && role !== 'api' && role !== 'standard') shape.push(`auth ${role}`);
  syncHeaders(rng, op, headers, shape);
  let body: Buffer = Buffer.alloc(0);
  const content = op.spec.requestBody?.content ?? {};
  const key = `${op.method} ${op.template}`;
  if (method === op.method && Object.keys(content).length) {
    let contentType = Object.keys(content)[0]!;
    if (key === 'POST /api/dictionaries' && rng.chance(0.8)) {
      const m = multipart(rng, world, shape);
      contentType = m.contentType;
      body = m.body;
    } else if (contentType === 'text/plain' || key === 'POST /api/dictionaries') {
      contentType = 'text/plain';
      body = mutateText(rng, world.dcf, shape);
    } else {
      let value = validJson(rng, op, world);
      if (rng.chance(0.5)) value = mutateJson(rng, value, shape);
      if (key === 'POST /api/token' && rng.chance(0.5)) {
        contentType = 'application/x-www-form-urlencoded';
        body = Buffer.from(
          new URLSearchParams(
            Object.entries(value as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]),
          ).toString(),
        );
      } else body = Buffer.from(jsonText(rng, value, shape));
    }
    if (rng.chance(0.1)) {
      contentType = rng.pick([
        'text/html',
        'application/xml',
        'application/json; charset=utf-16',
        '',
        'multipart/form-data; boundary=',
        'application/json\r\nX-Injected: 1'.replace(/\r\n/, ' '),
      ]);
      shape.push(`content-type ${JSON.stringify(contentType)}`);
    }
    if (contentType) headers.push(['content-type', contentType]);
    body = encode(rng, body, headers, shape);
  } else if (op.method === 'PUT' && op.template === '/api/files/{path}/content') {
    body = rng.bytes(rng.pick([0, 10, 5000, 200_000]));
    headers.push(['content-type', 'application/octet-stream']);
  } else if (rng.chance(0.05)) {
    body = Buffer.from('unexpected body');
    headers.push(['content-type', 'text/plain']);
    shape.push('body on a bodyless route');
  }
  if (rng.chance(0.05)) {
    headers.push(
      rng.pick<[string, string]>([
        ['x-forwarded-for', '1.2.3.4, 127.0.0.1'],
        ['accept-encoding', 'gzip, br'],
        ['expect', '100-continue'],
        ['if-none-match', '"' + 'x'.repeat(3000) + '"'],
        ['range', 'bytes=5-1'],
        ['x-long', 'v'.repeat(7000)],
      ]),
    );
    shape.push(`header ${headers.at(-1)![0]}`);
  }
  const framing =
    body.length === 0
      ? rng.pick<FuzzRequest['framing']>(['exact', 'exact', 'exact', 'exact', 'cl-long'])
      : rng.pick<FuzzRequest['framing']>([
          'exact',
          'exact',
          'exact',
          'exact',
          'exact',
          'exact',
          'cl-short',
          'cl-long',
          'abort',
          'chunked',
          'bad-chunked',
        ]);
  if (framing !== 'exact') shape.push(`framing ${framing}`);
  return { method, path, headers, body, framing, role, op: target, shape };
}
