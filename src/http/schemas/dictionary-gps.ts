import { z } from 'zod';
import type { DictionaryGpsReply as CoreGpsReply } from '../../core/dictionaries/index.js';
import type { Describes } from './same-shape.js';

/** Body of PUT /api/dictionaries/{name}/gps (docs/export.md#gps-items-of-a-dictionary). */
export const DictionaryGpsBody = z
  .object({
    latitude: z.string().min(1).meta({ description: 'the latitude item (any case)', example: 'HH_GPS_LATITUDE' }),
    longitude: z.string().min(1).meta({ description: 'the longitude item, on the same record', example: 'HH_GPS_LONGITUDE' }),
  })
  .strict()
  .meta({ id: 'DictionaryGpsBody' });

/** The GPS items of a dictionary: those set (as the dictionary spells them), or nulls. */
export const DictionaryGpsReply = z
  .object({
    dictionary: z.string(),
    latitude: z.string().nullable(),
    longitude: z.string().nullable(),
    record: z.string().nullable().meta({ description: 'the record holding both, or `level N ids`; null when none are set' }),
    message: z.string(),
  })
  .meta({ id: 'DictionaryGpsReply' });

/** Reply of DELETE /api/dictionaries/{name}/gps: the nulls, and whether any were set. */
export const DictionaryGpsCleared = DictionaryGpsReply.extend({
  cleared: z.boolean().meta({ description: 'false when the dictionary had none set' }),
}).meta({ id: 'DictionaryGpsCleared' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const gpsSchemasMatchCore: [
  Describes<typeof DictionaryGpsReply, CoreGpsReply>,
  Describes<typeof DictionaryGpsCleared, CoreGpsReply & { cleared: boolean }>,
] = [true, true];
