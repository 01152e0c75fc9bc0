import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { VERSION } from '../../core/home/index.js';
import type { ApiBuilder } from '../api-builder.js';
import type { RouteDeps } from './route-deps.js';

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document generated from the route registry. Public,
 * like any API description; generated on first request, after every group has registered.
 */
export function openApiRoutes(api: ApiBuilder, _deps: RouteDeps): void {
  let doc: object | undefined;
  api.route({
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This API’s OpenAPI 3.1 description',
    tags: ['meta'],
    permission: 'public',
    responses: { 200: { description: 'OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } } },
    handler: (c) => {
      doc ??= new OpenApiGeneratorV31(api.registry.definitions).generateDocument({
        openapi: '3.1.0',
        info: {
          title: 'sds — Survey Data Service API',
          version: VERSION,
          description:
            'CSPro dictionaries, cases, media files and breakout jobs. OAuth 2.0 password and refresh grants at POST /api/token.',
        },
        servers: [{ url: '/' }],
      });
      return c.json(doc);
    },
  });
}
