import { z } from 'zod';
import type { ReadyCheck as CoreReadyCheck } from '../../core/health/index.js';
import type { Describes } from './same-shape.js';

/** `GET /healthz`: the process answers. */
export const Liveness = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Liveness' });

const message = z.string().optional().meta({ description: 'why the check failed' });

const ReadyCheck = z
  .discriminatedUnion('name', [
    z.strictObject({ name: z.literal('store'), ok: z.boolean(), message }),
    z.strictObject({
      name: z.literal('migrations'),
      ok: z.boolean(),
      applied: z.number().int().optional().meta({ description: 'the schema version of the store' }),
      latest: z.number().int().meta({ description: 'the schema version this sds needs' }),
      message,
    }),
    z.strictObject({
      name: z.literal('disk'),
      ok: z.boolean(),
      free_bytes: z.number().int().optional().meta({ description: 'free space of the home’s file system, in bytes' }),
      min_free_bytes: z.number().int().meta({ description: 'the floor (SDS_READY_MIN_FREE_BYTES)' }),
      message,
    }),
  ])
  .meta({ id: 'ReadyCheck' });

/** `GET /readyz` when every check passes. */
/** The node that answered (src/shared/node-id.ts): which of several behind a load balancer. */
const Node = z
  .string()
  .meta({ description: 'the node id of the server that answered: host:pid:start (docs/http-api.md#health-and-readiness)' });

export const Ready = z.strictObject({ status: z.literal('ready'), node: Node, checks: z.array(ReadyCheck) }).meta({ id: 'Ready' });

/** `GET /readyz` when a check fails: `failed` names them. */
export const NotReady = z
  .strictObject({
    status: z.literal('not_ready'),
    node: Node,
    failed: z.array(z.enum(['store', 'migrations', 'disk'])).min(1),
    checks: z.array(ReadyCheck),
  })
  .meta({ id: 'NotReady' });

// Compile-time guard: the schema must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: Describes<typeof ReadyCheck, CoreReadyCheck> = true;
