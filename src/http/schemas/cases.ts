import { z } from 'zod';
import type { CaseList as CoreCaseList } from '../../core/cases/index.js';
import type { Describes } from './same-shape.js';
import { Timestamp } from './common.js';

const Whole = z.string().regex(/^\d+$/, 'must be a whole number ≥ 0');

/** Query of GET /api/dictionaries/{name}/cases (docs/http-api.md#routes, limits in docs/limits.md). */
export const CasesQuery = z.object({
  limit: Whole.optional().meta({ param: { description: 'page size, 1 to 1000 (default 100)' }, example: '100' }),
  offset: Whole.optional().meta({ param: { description: 'cases to skip (default 0)' }, example: '0' }),
});

/** Case summary (docs/http-api.md#routes). */
const CaseSummary = z
  .strictObject({ guid: z.string(), case_label: z.string(), modified_date: Timestamp, verified: z.boolean(), deleted: z.boolean() })
  .meta({ id: 'CaseSummary' });

/** Case list envelope (docs/http-api.md#routes). */
export const CaseList = z
  .strictObject({ total: z.int().min(0), limit: z.int().min(1), offset: z.int().min(0), data: z.array(CaseSummary) })
  .meta({ id: 'CaseList' });

// Compile-time guard: the schema must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: Describes<typeof CaseList, CoreCaseList> = true;
