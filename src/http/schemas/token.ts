import { z } from 'zod';
import type { CsproUser, TokenResponse as CoreTokenResponse } from '../../core/auth/index.js';
import type { Describes } from './same-shape.js';

/** Parameters of POST /api/token (docs/http-api.md#authentication); which ones a grant needs is checked by the core. */
export const TokenRequest = z
  .object({
    grant_type: z.string().optional().meta({ description: '`password` or `refresh_token`' }),
    username: z.string().optional().meta({ description: 'password grant' }),
    password: z.string().optional().meta({ description: 'password grant' }),
    refresh_token: z.string().optional().meta({ description: 'refresh grant' }),
    client_id: z.string().optional().meta({ description: 'optional; when given must be a configured client (e.g. cspro_android)' }),
    client_secret: z.string().optional(),
  })
  .meta({ id: 'TokenRequest' });

/** Token response (docs/http-api.md#authentication). */
export const TokenResponse = z
  .strictObject({
    access_token: z.string().meta({ description: 'JWT (HS256), sent as `Authorization: Bearer`' }),
    token_type: z.literal('Bearer'),
    expires_in: z.literal(3600),
    refresh_token: z.string().meta({ description: 'opaque; a new one is issued on each refresh, the old one becomes invalid' }),
  })
  .meta({ id: 'TokenResponse' });

/** The account as CSPro 8.1 reads it from a password grant (docs/sync.md#token). */
const CsproUserSchema = z
  .strictObject({
    id: z.string().meta({
      description: "the account's UUID: never given to another account, even one of the same name",
      example: '3f2c9a4e-8b1d-4c6e-9f0a-2d7b5e1c4a93',
    }),
    roleName: z.string().meta({ description: '`Administrator`, `API` or `Standard User`', example: 'Standard User' }),
  })
  .meta({ id: 'CsproUser' });

/** The password grant's reply to CSPro 8.1 and later (docs/sync.md#token). */
export const WrappedTokenResponse = z
  .strictObject({ credentials: TokenResponse, user: CsproUserSchema })
  .meta({ id: 'WrappedTokenResponse' });

// Compile-time guard: the schema must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: Describes<typeof TokenResponse, CoreTokenResponse> = true;
/** @public Read by the compiler only. */
export const userSchemasMatchCore: Describes<typeof CsproUserSchema, CsproUser> = true;
