import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ErrorBody, json } from './schemas/common.js';

/** What `withStandardErrors` needs to know of a route. */
export interface StandardErrorsOf {
  path: string;
  bodyLimit?: number;
  request?: RouteConfig['request'];
}

const PATH_PARAMETER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Text of the 400 every route with path parameters may answer (validate.ts, the media-area path checks). */
function pathParameterText(names: string[]): string {
  const list = names.map((n) => `\`${n}\``).join(', ');
  const file =
    names.includes('path') || names.includes('filename')
      ? '; a file path that escapes the media area or is not allowed is `PATH_INVALID`'
      : '';
  return `a path parameter (${list}) that is empty, too long or not of its form (\`USAGE\`, naming it)${file}`;
}

function isErrorBody(r: ResponseConfig | undefined): boolean {
  const media = r?.content?.['application/json'];
  return media !== undefined && 'schema' in media && media.schema === ErrorBody;
}

/**
 * The responses of a route with the errors every route of its kind can give, the same way
 * everywhere (docs/http-api.md, "Statuses every route may answer"):
 * - a route with path parameters documents 400: a route's own 400 in the `{error, message}`
 *   shape gets the path-parameter case added to its description; one in another shape is kept as is;
 * - a route with a request body documents 413 `PAYLOAD_TOO_LARGE`, with its limit when the
 *   builder enforces one; a route's own 413 (its own limit, or another error shape) is kept.
 * The route's own entries win otherwise: they are the override.
 */
export function withStandardErrors(route: StandardErrorsOf, responses: RouteConfig['responses']): RouteConfig['responses'] {
  const out: RouteConfig['responses'] = { ...responses };
  const params = [...route.path.matchAll(PATH_PARAMETER)].map((m) => m[1]!);
  if (params.length) {
    const text = pathParameterText(params);
    const own = out[400] as ResponseConfig | undefined;
    if (!own) out[400] = json(ErrorBody, text);
    else if (isErrorBody(own)) out[400] = { ...own, description: `${own.description}; ${text}` };
  }
  const hasBody = route.request?.body !== undefined || route.bodyLimit !== undefined;
  if (hasBody && !out[413]) {
    const limit = route.bodyLimit === undefined ? 'the limit of this route (docs/limits.md)' : `the limit of ${route.bodyLimit} bytes`;
    out[413] = json(ErrorBody, `the request body is larger than ${limit} (\`PAYLOAD_TOO_LARGE\`, with \`details.limit\`)`);
  }
  return out;
}
