// What is wrong with a fuzzed request's reply, as a reproducible record.
import { checkReply, type OpenApiDoc } from './openapi-validate.js';
import type { FuzzRequest, Operation, Role } from './fuzz-requests.js';
import type { FuzzResponse } from './fuzz-wire.js';

/** One broken promise of the server, with what reproduces it. */
export interface FuzzFailure {
  kind: 'crash' | 'no-response' | 'undocumented-5xx' | 'bad-error-shape' | 'undocumented-4xx' | 'unanswered' | 'logged-5xx' | 'integrity';
  method: string;
  path: string;
  template?: string;
  role?: Role;
  status?: number;
  shape?: string[];
  headers?: [string, string][];
  bodyPrefix?: string;
  bodyLength?: number;
  framing?: string;
  detail: string;
}

/** Smallest body limit of the server (JSON bodies of the management routes, 16 KB). */
const EARLY_REFUSAL_BYTES = 16 * 1024;

/**
 * Names of the error bodies of the document, accepted for a 4xx the route does not list. A request
 * sent with a wrong verb can land on a sibling route of the same path (`DELETE /api/apps/{name}`
 * for `GET`), which answers its own documented body: CSWeb's shape included.
 */
const ERROR_SCHEMAS = ['Error', 'OAuthError', 'RateLimitError', 'RateLimitedError', 'FileError', 'StatusError', 'CswebError'];

function matchesAnyErrorSchema(doc: OpenApiDoc, body: unknown): boolean {
  const probe = {
    paths: { '/probe': { get: { responses: {} as Record<string, unknown> } } },
    components: doc.components,
  } as unknown as OpenApiDoc;
  for (const name of ERROR_SCHEMAS) {
    if (!doc.components.schemas[name]) continue;
    (probe.paths['/probe']!.get!.responses as Record<string, unknown>)['400'] = {
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
    if (checkReply(probe, 'GET', '/probe', 400, body).length === 0) return true;
  }
  return false;
}

/** The request as a failure record: redacted token, body prefix, framing. */
export function recordOf(req: FuzzRequest, kind: FuzzFailure['kind'], detail: string, status?: number): FuzzFailure {
  return {
    kind,
    method: req.method,
    path: req.path.length > 300 ? `${req.path.slice(0, 300)}…(${req.path.length} chars)` : req.path,
    template: req.op?.template,
    role: req.role,
    status,
    shape: req.shape,
    headers: req.headers.map(([k, v]) => [
      k,
      /^(authorization|x-webhook-token)$/i.test(k) ? `<${req.role} token>` : v.length > 200 ? `${v.slice(0, 200)}…(${v.length})` : v,
    ]),
    bodyPrefix: JSON.stringify(req.body.subarray(0, 300).toString('latin1')),
    bodyLength: req.body.length,
    framing: req.framing,
    detail,
  };
}

/**
 * What is wrong with the reply to `req` (empty when it keeps the promises): a 5xx the document
 * does not list for the route, a 4xx whose body is not the documented error shape, a 4xx status
 * the route does not list, or no reply to a well-framed request. `noResponse` with an aborted or
 * unfinished body is fine: the client is gone or never finished.
 */
export function judge(doc: OpenApiDoc, req: FuzzRequest, res: FuzzResponse): FuzzFailure[] {
  if (res.status === undefined) {
    if (req.framing === 'abort' || req.framing === 'cl-long' || req.framing === 'bad-chunked')
      return res.noResponse === 'timeout' ? [recordOf(req, 'no-response', `no answer and no close in ${res.ms} ms`)] : [];
    // A server may refuse a large body early and close while the client still writes (the client
    // then sees EPIPE or a reset, not the reply): allowed. A crash or a 5xx is still caught, by
    // the liveness check and the request log.
    if (req.body.length >= EARLY_REFUSAL_BYTES && /EPIPE|ECONNRESET/.test(res.noResponse ?? '')) return [];
    return [recordOf(req, 'no-response', `${res.noResponse ?? 'no response'} after ${res.ms} ms`)];
  }
  const status = res.status;
  // Node's HTTP parser refuses broken framing (a body longer or shorter than announced, bad
  // chunks) with a bare 400, and a head over its 16 KB limit with a bare 431, before any route
  // runs: the request never reached the API.
  if (status === 400 && res.body.length === 0 && (req.framing === 'cl-short' || req.framing === 'cl-long' || req.framing === 'bad-chunked'))
    return [];
  if (status === 431 && res.body.length === 0) return [];
  const documented = req.op ? Object.keys(req.op.spec.responses) : [];
  const text = res.body.toString('utf8');
  if (status >= 500) {
    if (req.op && documented.includes(String(status))) return [];
    return [recordOf(req, 'undocumented-5xx', text.slice(0, 300), status)];
  }
  if (status < 400) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [
      recordOf(req, 'bad-error-shape', `not JSON (${res.headers['content-type'] ?? 'no content-type'}): ${text.slice(0, 200)}`, status),
    ];
  }
  if (!/^application\/json/i.test(res.headers['content-type'] ?? ''))
    return [recordOf(req, 'bad-error-shape', `content-type ${res.headers['content-type']}`, status)];
  // A cl-short request's reply belongs to the first half of the body: judged as any other.
  if (req.op && documented.includes(String(status))) {
    const problems = checkReply(doc, req.op.method, req.op.template, status, parsed);
    return problems.length ? [recordOf(req, 'bad-error-shape', `${problems.join('; ')}: ${text.slice(0, 200)}`, status)] : [];
  }
  if (!matchesAnyErrorSchema(doc, parsed))
    return [recordOf(req, 'bad-error-shape', `not an error body of the document: ${text.slice(0, 200)}`, status)];
  // A refusal of the framing itself (Node's parser: 400) comes before any route: not the route's to document.
  if (req.op && !(status === 400 && req.framing !== 'exact'))
    return [
      recordOf(req, 'undocumented-4xx', `${status} is not listed for ${req.op.method} ${req.op.template}: ${text.slice(0, 200)}`, status),
    ];
  return [];
}

/**
 * Request-log lines with a 5xx (`<time> METHOD PATH STATUS …`): a client that went away never
 * sees them, so the log is the only witness of a 500 on an aborted request.
 */
export function logged5xx(log: string): { method: string; path: string; status: number }[] {
  const out: { method: string; path: string; status: number }[] = [];
  for (const m of log.matchAll(/^\S+Z (\S+) (\S+) (5\d\d) \d+ms/gm)) out.push({ method: m[1]!, path: m[2]!, status: Number(m[3]) });
  return out;
}

/** Characters of a template outside its `{parameters}`: the more, the more specific. */
function literalLength(template: string): number {
  return template.replace(/\{[^}]+\}/g, '').length;
}

/**
 * The documented operation a concrete path belongs to, by its template. When several templates
 * match, the most specific one (most literal characters) is the route that answers, as OpenAPI
 * path matching and the server's router both have it: `/api/files/media/photo.jpg/content` matches
 * `/api/files/{path}/content` too, but the media route `/api/files/media/{filename}/content` serves it.
 */
export function operationOfPath(ops: Operation[], method: string, path: string): Operation | undefined {
  const matching = ops.filter(
    (o) =>
      o.method === method &&
      new RegExp(
        `^${o.template
          .replace(/[.]/g, '\\.')
          .replace(/\{path\}/g, '.+')
          .replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ).test(path),
  );
  return matching.sort((a, b) => literalLength(b.template) - literalLength(a.template))[0];
}

/** A failure list as text for an assertion message: distinct failures first, each with one full example. */
export function formatFailures(failures: FuzzFailure[], seed: number): string {
  const groups = new Map<string, FuzzFailure[]>();
  for (const f of failures) {
    const key = `${f.kind} ${f.method} ${f.template ?? f.path.split('?')[0]} ${f.status ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [`fuzz seed ${seed} (replay: SDS_FUZZ_SEED=${seed}): ${failures.length} failing requests, ${groups.size} distinct`];
  for (const [key, fs] of groups) {
    const f = fs[0]!;
    lines.push(`\n● ${key} ×${fs.length}`);
    lines.push(`  ${f.method} ${f.path}  (role ${f.role}, framing ${f.framing}, status ${f.status ?? '-'})`);
    if (f.shape?.length) lines.push(`  shape: ${f.shape.join(' | ')}`);
    if (f.headers) lines.push(`  headers: ${f.headers.map(([k, v]) => `${k}: ${v}`).join(' | ')}`);
    if (f.bodyLength !== undefined) lines.push(`  body (${f.bodyLength} bytes): ${f.bodyPrefix}`);
    lines.push(`  → ${f.detail.slice(0, f.kind === 'crash' ? 2500 : 600).replace(/\n/g, '\n    ')}`);
  }
  return lines.join('\n');
}
